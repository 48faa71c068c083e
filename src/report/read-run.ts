// Reads a run directory for `mgpu-train report`: metrics.jsonl (tolerant of a line torn by a
// crash, and of NaN/Infinity however they were written), config.yaml, the checkpoints present
// and the final model. Nothing here writes.
import fs from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { MgpuError } from '../shared/errors.ts';
import { outputField } from './outputs.ts';
import type { BestLine, EvalLine, EventLine, LrLine, RestoreLine, StopLine, TrainLine } from '../shared/metrics-lines.ts';

/** A metrics line as read back: numbers that were NaN/Infinity (JSON null) come back as NaN. */
export type TrainPoint = TrainLine;
export type EvalPoint = EvalLine;
export type RunEvent = EventLine;
/** What watched the evaluations did: a new best/, a stop, a lower learning rate, final/ restored. */
export type WatchPoint = BestLine | StopLine | LrLine | RestoreLine;
const WATCH_TYPES = ['best', 'stop', 'lr', 'restore'];

export interface CheckpointInfo {
  step: number;
  dir: string;
}

export interface RunData {
  runDir: string; // as given
  name: string;
  train: TrainPoint[]; // sorted by step
  evals: EvalPoint[]; // sorted by step
  events: RunEvent[]; // skip and failure lines, in file order
  watch: WatchPoint[]; // best, stop, lr and restore lines, in file order
  /** Lines that could not be read: a torn last line, or a malformed line elsewhere. */
  unreadable: { line: number; torn: boolean; text: string }[];
  configText: string | null;
  config: Record<string, unknown> | null;
  checkpoints: CheckpointInfo[]; // complete step-<k> directories, oldest first
  /** From the newest checkpoint's trainer-state.json, when there is one. */
  trainerState: { workers?: number; backend?: string; batchSize?: number; restarts?: number; skippedSteps?: number[] } | null;
  finalModel: string | null; // <runDir>/final/model.json when present
  finalEmaModel: string | null;
}

const TRAIN_FIELDS = [
  'step',
  'epoch',
  'loss',
  'lr',
  'samples_per_sec',
  'compute_max_ms',
  'compute_min_ms',
  'sync_ms',
  'data_ms',
  'step_ms',
  'grad_norm',
] as const;

/** JSON.stringify writes NaN and ±Infinity as null; Python's json writes bare NaN / Infinity. */
/** A string field of a line as it was written; another JSON value as JSON, a missing one as ''. */
function str(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v);
}

function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const t = v.trim();
    if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
    return Number(t); // 'NaN' and anything unparseable give NaN
  }
  return NaN; // null, missing
}

function parseLine(text: string): Record<string, unknown> | null {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    // A writer other than JSON.stringify (Python, a hand edit) may put NaN / Infinity bare.
    const quoted = text.replace(/([:,[]\s*)(-?Infinity|NaN)(?=\s*[,}\]])/g, '$1"$2"');
    if (quoted === text) return null;
    try {
      obj = JSON.parse(quoted);
    } catch {
      return null;
    }
  }
  return obj !== null && typeof obj === 'object' && !Array.isArray(obj) ? (obj as Record<string, unknown>) : null;
}

/** An eval line's `metrics` object (config metrics, by key): null values stay null (undefined metrics). */
function metricsOf(v: unknown): { metrics: Record<string, number | null> } | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  return { metrics: Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, x === null ? null : num(x)])) };
}

export function parseMetrics(text: string): Pick<RunData, 'train' | 'evals' | 'events' | 'watch' | 'unreadable'> & { lines: number } {
  const train: TrainPoint[] = [];
  const evals: EvalPoint[] = [];
  const events: RunEvent[] = [];
  const watch: WatchPoint[] = [];
  const unreadable: RunData['unreadable'] = [];
  const rows = text.split('\n');
  const lastNonEmpty = rows.reduce((last, r, i) => (r.trim() ? i : last), -1);
  let lines = 0;
  rows.forEach((raw, i) => {
    if (!raw.trim()) return;
    const obj = parseLine(raw);
    const type = obj?.type;
    if (
      !obj ||
      (type !== 'train' && type !== 'eval' && type !== 'skip' && type !== 'failure' && type !== 'bad-sample' && !WATCH_TYPES.includes(type as string)) ||
      !Number.isFinite(num(obj.step))
    ) {
      unreadable.push({ line: i + 1, torn: i === lastNonEmpty && !text.endsWith('\n'), text: raw.length > 80 ? raw.slice(0, 77) + '...' : raw });
      return;
    }
    lines++;
    if (type === 'bad-sample') return; // a sample left out (data.onBadSample: skip): no figure to chart
    if (type === 'train') {
      const t = { type: 'train' } as Record<string, unknown>;
      for (const k of TRAIN_FIELDS) t[k] = num(obj[k]);
      train.push(t as unknown as TrainPoint);
    } else if (type === 'eval') {
      evals.push({
        type: 'eval',
        step: num(obj.step),
        epoch: num(obj.epoch),
        samples: num(obj.samples),
        loss: num(obj.loss),
        accuracy: obj.accuracy === null || obj.accuracy === undefined ? null : num(obj.accuracy),
        top_k: obj.top_k === null || obj.top_k === undefined ? null : num(obj.top_k),
        k: num(obj.k),
        mae: num(obj.mae),
        ...(metricsOf(obj.metrics) ?? {}),
        // Several outputs: each output's figures (loss.<output>, accuracy.<output>, ...).
        ...Object.fromEntries(Object.entries(obj).flatMap(([k, v]) => (outputField(k) ? [[k, num(v)]] : []))),
      });
    } else if (WATCH_TYPES.includes(type as string) && !(type === 'stop' && 'action' in obj)) {
      // (A 'stop' with an action is the library API's stop request, an event like a skip.)
      // Numbers as the other lines read them (null stays null: no best yet); strings as they are.
      const w: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(obj)) w[k] = v === null || typeof v === 'string' ? v : num(v);
      watch.push(w as unknown as WatchPoint);
    } else {
      events.push({
        type: type as RunEvent['type'],
        step: num(obj.step),
        ranks: Array.isArray(obj.ranks) ? obj.ranks.map(num) : [],
        message: str(obj.message),
        action: str(obj.action),
      });
    }
  });
  const byStep = (a: { step: number }, b: { step: number }) => a.step - b.step;
  train.sort(byStep); // stable: lines of one step keep their order
  evals.sort(byStep);
  return { train, evals, events, watch, unreadable, lines };
}

async function readText(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
    throw err;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

export async function readRun(runDir: string): Promise<RunData> {
  const shown = runDir.replace(/\/+$/, '') || runDir;
  const noRun = (hint: string) => new MgpuError('E_USAGE', `${shown} has no metrics.jsonl — is it a run directory?`, { hint });
  const metricsText = await readText(path.join(runDir, 'metrics.jsonl'));
  if (metricsText === null) {
    throw noRun(`a run directory is what \`mgpu-train train\` writes (runs/<name> by default, or --run-dir), with metrics.jsonl and config.yaml in it`);
  }
  const parsed = parseMetrics(metricsText);
  if (parsed.lines === 0) {
    throw noRun(
      metricsText.trim()
        ? `${path.join(shown, 'metrics.jsonl')} holds no readable metrics line`
        : `${path.join(shown, 'metrics.jsonl')} is empty: the run stopped before its first metrics line (one every log.every steps)`,
    );
  }

  const configText = await readText(path.join(runDir, 'config.yaml'));
  let config: Record<string, unknown> | null = null;
  if (configText !== null) {
    try {
      const c = parseYaml(configText) as unknown;
      if (c && typeof c === 'object' && !Array.isArray(c)) config = c as Record<string, unknown>;
    } catch {
      config = null; // shown as text all the same
    }
  }

  const checkpoints: CheckpointInfo[] = [];
  const root = path.join(runDir, 'checkpoints');
  try {
    for (const ent of await fs.readdir(root, { withFileTypes: true })) {
      const m = /^step-(\d+)$/.exec(ent.name);
      if (m && ent.isDirectory()) checkpoints.push({ step: Number(m[1]), dir: path.join(root, ent.name) });
    }
  } catch {
    // no checkpoints directory
  }
  checkpoints.sort((a, b) => a.step - b.step);

  let trainerState: RunData['trainerState'] = null;
  const newest = checkpoints.at(-1);
  if (newest) {
    const text = await readText(path.join(newest.dir, 'trainer-state.json'));
    try {
      if (text) trainerState = JSON.parse(text) as RunData['trainerState'];
    } catch {
      trainerState = null;
    }
  }

  const finalModel = path.join(runDir, 'final', 'model.json');
  const finalEma = path.join(runDir, 'final-ema', 'model.json');
  const name = typeof config?.name === 'string' && config.name ? config.name : path.basename(path.resolve(runDir));
  return {
    runDir,
    name,
    train: parsed.train,
    evals: parsed.evals,
    events: parsed.events,
    watch: parsed.watch,
    unreadable: parsed.unreadable,
    configText,
    config,
    checkpoints,
    trainerState,
    finalModel: (await exists(finalModel)) ? finalModel : null,
    finalEmaModel: (await exists(finalEma)) ? finalEma : null,
  };
}
