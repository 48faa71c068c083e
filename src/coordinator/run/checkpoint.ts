// Checkpoints: runs/<name>/checkpoints/step-<k>/ holds the model in the tfjs LayersModel format
// (model.json + weights.bin, loadable by tf.loadLayersModel as it is) and, beside it, what the
// trainer needs to continue bit-identically: trainer-state.json (step, data cursor, seed, the
// resolved config, the data it was trained on: data/data-record.ts), optimizer.bin (the optimizer's slots) and ema.bin (EMA weights); with
// class-name labels, labels.json (data/classes.ts), the mapping a resumed run keeps. With
// checkpoint.best or training.earlyStopping.restoreBest, the weights those keep are saved too
// (best.bin, early-stopping-best.bin, and -ema.bin beside each with EMA), with their state in
// trainer-state.json, so a resumed run keeps them and rewrites best/ as it was.
//
// Written into step-<k>.tmp-<pid> (each file fsynced, with checksums.json: every file's size and
// CRC-32C) and renamed into place: a directory named step-<k> is always complete, and --resume
// never looks at anything else. Every read checks each file against checksums.json and its
// size against the model (checkCheckpointFiles); a checkpoint older than the checksums gets the
// size checks alone.
import fs from 'node:fs';
import path from 'node:path';
import { MgpuError } from '../../shared/errors.ts';
import type { ModelLayout, VariableSpec } from '../../shared/layout.ts';
import { flatten } from '../../shared/layout.ts';
import { DamagedFileError, verifyChecksums } from '../../shared/file-integrity.ts';
import { readFlatWeights, readLayersModel, writeLayersModel } from '../../shared/model-files.ts';
import { processAlive } from '../../shared/process-alive.ts';
import { makeUpdateRule } from '../engine/optimizers/index.ts';
import type { TrainerState } from './trainer-state.ts';

// train.ts imports it from here.

export const STATE_FILE = 'trainer-state.json';
const FORMAT: TrainerState['format'] = 'mgpu-train-checkpoint';

/** Weights kept beside the master weights: checkpoint.best's and restoreBest's (and their EMA). */
export const SNAPSHOT_FILES = ['best.bin', 'best-ema.bin', 'early-stopping-best.bin', 'early-stopping-best-ema.bin'] as const;
export type SnapshotName = (typeof SNAPSHOT_FILES)[number];
export type Snapshots = Partial<Record<SnapshotName, Float32Array>>;

export interface Checkpoint {
  dir: string;
  state: TrainerState;
  weights: Float32Array; // flat, trainable first
  slots: Float32Array[];
  ema: Float32Array | null;
  snapshots: Snapshots;
}

const bytes = (a: Float32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

export function checkpointDir(runDir: string, step: number): string {
  return path.join(runDir, 'checkpoints', `step-${step}`);
}

/** `files`: written beside the model as they are (labels.json). */
export function writeCheckpoint(
  dir: string,
  layout: ModelLayout,
  state: TrainerState,
  weights: Float32Array,
  slots: Float32Array[],
  ema: Float32Array | null,
  snapshots: Snapshots = {},
  files: Record<string, string> = {},
): void {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const pt = flatten(layout.variables).trainable;
  const opt = new Float32Array(slots.length * pt);
  slots.forEach((s, k) => opt.set(s, k * pt));
  const extra: Record<string, string | Uint8Array> = { ...files, 'optimizer.bin': bytes(opt), [STATE_FILE]: JSON.stringify(state, null, 1) };
  if (ema) extra['ema.bin'] = bytes(ema);
  for (const [name, w] of Object.entries(snapshots) as [string, Float32Array | undefined][]) if (w) extra[name] = bytes(w);
  writeLayersModel(dir, layout, weights, extra);
}

/** Keeps the newest `keep` checkpoints, and removes temporary directories of dead writers. */
export function pruneCheckpoints(runDir: string, keep: number): void {
  const root = path.join(runDir, 'checkpoints');
  if (!fs.existsSync(root)) return;
  for (const dir of listComplete(root).slice(keep)) fs.rmSync(dir, { recursive: true, force: true });
  for (const name of fs.readdirSync(root)) {
    const m = /\.tmp-(\d+)$/.exec(name);
    if (m && !processAlive(Number(m[1]))) fs.rmSync(path.join(root, name), { recursive: true, force: true });
  }
}

/** Complete checkpoint directories under `root`, newest first. */
export function listComplete(root: string): string[] {
  return fs
    .readdirSync(root)
    .map((name) => ({ name, m: /^step-(\d+)$/.exec(name) }))
    .filter((e) => e.m && fs.existsSync(path.join(root, e.name, STATE_FILE)))
    .sort((a, b) => Number(b.m![1]) - Number(a.m![1]))
    .map((e) => path.join(root, e.name));
}

/**
 * A resume from an earlier checkpoint than the run's newest: the later ones hold the run as it
 * was before, which the resumed run does not continue (metrics.jsonl drops their lines too). They
 * are moved whole into checkpoints/superseded-at-step-<k>-<time>/ (nothing is deleted), so that
 * --resume and eval --checkpoint <run dir> never take one of them for this run's newest.
 */
export function setAsideLaterCheckpoints(runDir: string, step: number, now = new Date()): { to: string; moved: string[] } | null {
  const root = path.join(runDir, 'checkpoints');
  const later = fs.existsSync(root) ? listComplete(root).filter((d) => Number(/step-(\d+)$/.exec(d)![1]) > step) : [];
  if (later.length === 0) return null;
  const to = path.join(root, `superseded-at-step-${step}-${now.toISOString().replace(/[:.]/g, '-')}`);
  fs.mkdirSync(to);
  const moved = later.reverse().map((d) => {
    fs.renameSync(d, path.join(to, path.basename(d)));
    return path.basename(d);
  });
  return { to, moved };
}

/**
 * The checkpoint --resume continues from, or (`use: 'load'`) the one eval and predict read:
 * `target` is a checkpoint directory, or a run directory whose newest complete checkpoint is taken.
 */
export function findCheckpoint(target: string, use: 'resume' | 'load' = 'resume'): string {
  if (fs.existsSync(path.join(target, STATE_FILE))) return target;
  const root = path.join(target, 'checkpoints');
  const found = fs.existsSync(root) ? listComplete(root) : [];
  if (found.length === 0) {
    const what = use === 'resume' ? 'no checkpoint to resume from' : 'no model or checkpoint to load';
    const dirs =
      use === 'resume'
        ? 'a run directory with checkpoints/step-<k>/ inside, or a checkpoint directory'
        : 'a model directory (model.json inside, e.g. runs/<name>/final), a checkpoint directory, or a run directory with checkpoints/step-<k>/ inside';
    throw new MgpuError('E_USAGE', `${what} in ${target}`, { hint: `name ${dirs}; set checkpoint.every to write checkpoints` });
  }
  return found[0]!;
}

/** trainer-state.json of a checkpoint: what it is, and the resolved config it was trained with. */
export function readTrainerState(dir: string): TrainerState {
  // Any JSON file: checked below before it is taken for a TrainerState.
  let state: (Partial<Omit<TrainerState, 'format' | 'version'>> & { format?: unknown; version?: unknown }) | null;
  try {
    state = JSON.parse(fs.readFileSync(path.join(dir, STATE_FILE), 'utf8')) as typeof state;
  } catch (err) {
    throw new MgpuError('E_USAGE', `cannot read ${path.join(dir, STATE_FILE)}: ${(err as Error).message}`);
  }
  if (state?.format !== FORMAT || state.version !== 1)
    throw new MgpuError(
      'E_USAGE',
      `${dir} is not an mgpu-train checkpoint (format ${JSON.stringify(state?.format)} version ${JSON.stringify(state?.version)})`,
    );
  // Checkpoints written before restarts were counted lack the field.
  return { ...state, restarts: state.restarts ?? 0 } as TrainerState;
}

/** The run directory a checkpoint belongs to: <run>/checkpoints/step-<k>, else the one it was saved from. */
export function runDirOf(checkpoint: string, state: TrainerState): string {
  const parent = path.dirname(path.resolve(checkpoint));
  return path.basename(parent) === 'checkpoints' ? path.dirname(parent) : state.config.runDir;
}

/** Reads a checkpoint for a model of `layout`; a model that differs is refused naming both sides. */
export function readCheckpoint(dir: string, layout: ModelLayout): Checkpoint {
  checkCheckpointFiles(dir);
  const state = readTrainerState(dir);
  checkLayout(dir, state, layout);
  const flat = flatten(layout.variables);
  const weights = readFlatWeights(path.join(dir, 'model.json'), layout);
  const opt = readFloats(path.join(dir, 'optimizer.bin'));
  const slots = Array.from({ length: flat.trainable ? opt.length / flat.trainable : 0 }, (_, k) => opt.slice(k * flat.trainable, (k + 1) * flat.trainable));
  const emaFile = path.join(dir, 'ema.bin');
  const ema = fs.existsSync(emaFile) ? readFloats(emaFile) : null;
  const snapshots: Snapshots = {};
  for (const name of SNAPSHOT_FILES) {
    const file = path.join(dir, name);
    if (fs.existsSync(file)) snapshots[name] = readFloats(file);
  }
  return { dir, state, weights, slots, ema, snapshots };
}

/**
 * Throws a DamagedFileError (E_CHECKPOINT) for the first file of checkpoint `dir` that is
 * missing, fails its size or CRC-32C in checksums.json, or (checksums or not) holds another number
 * of bytes than the checkpoint's model and optimizer need: weights.bin against model.json,
 * optimizer.bin against the optimizer's slots, ema.bin and the kept weights against the model.
 */
export function checkCheckpointFiles(dir: string): void {
  // A resume checks its checkpoint where the CLI resolves it, before any worker starts and when
  // the weights are read: its files are read and summed once, unless they changed in between.
  const stamp = fs.existsSync(dir) ? filesStamp(dir) : null;
  if (stamp !== null && checkedOut.get(path.resolve(dir)) === stamp) return;
  verifyChecksums(dir);
  const state = readTrainerState(dir);
  const flat = flatten(state.variables);
  readLayersModel(path.join(dir, 'model.json'));
  const slots = makeUpdateRule(state.optimizer).slotInit.length;
  const each = `${flat.trainable} trainable parameters`;
  expectBytes(dir, 'optimizer.bin', slots * flat.trainable * 4, `${state.optimizer.name}'s ${slots} slot${slots === 1 ? '' : 's'} of ${each} need`);
  if (state.ema !== null) expectBytes(dir, 'ema.bin', flat.total * 4, `the EMA weights of ${flat.total} parameters need`);
  for (const name of SNAPSHOT_FILES) {
    if (fs.existsSync(path.join(dir, name))) expectBytes(dir, name, flat.total * 4, `the ${flat.total} parameters need`);
  }
  if (stamp !== null) checkedOut.set(path.resolve(dir), stamp);
}

/** Checkpoint directories whose files checked out, with their names, sizes and mtimes then. */
const checkedOut = new Map<string, string>();

const filesStamp = (dir: string): string =>
  fs
    .readdirSync(dir)
    .sort()
    .map((name) => {
      const st = fs.statSync(path.join(dir, name));
      return `${name}:${st.size}:${st.mtimeMs}`;
    })
    .join('|');

function expectBytes(dir: string, name: string, bytes: number, why: string): void {
  const file = path.join(dir, name);
  if (!fs.existsSync(file)) throw new DamagedFileError(dir, name, `is missing (${why} ${bytes} bytes)`);
  const size = fs.statSync(file).size;
  if (size !== bytes) throw new DamagedFileError(dir, name, `is ${size} bytes, ${why} ${bytes}`);
}

function readFloats(file: string): Float32Array {
  const b = fs.readFileSync(file);
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new Float32Array(copy.buffer);
}

/**
 * Refuses a model whose variables differ from the checkpoint's, naming both sides: the model's
 * variable list and shapes, and the checkpoint's.
 */
export function checkLayout(dir: string, state: TrainerState, layout: ModelLayout): void {
  const shapes = (vs: VariableSpec[]) => vs.map((v) => `${v.name} [${v.shape.join(', ')}]`).join(', ');
  const refuse = (what: string) => {
    throw new MgpuError('E_CONFIG', `the model does not fit checkpoint ${dir}: ${what}`, {
      hint: 'use the model the checkpoint was trained with (model.module, model.json or model.net and its options, and what it builds), or start a new run',
    });
  };
  const saved = state.variables;
  const now = layout.variables;
  if (saved.length !== now.length) refuse(`the model has ${now.length} variables (${shapes(now)}), the checkpoint ${saved.length} (${shapes(saved)})`);
  saved.forEach((v, i) => {
    const m = now[i]!; // the lengths are equal (refused above otherwise)
    if (v.name !== m.name) refuse(`variable ${i} is ${m.name} [${m.shape.join(', ')}] in the model but ${v.name} [${v.shape.join(', ')}] in the checkpoint`);
    if (v.shape.join('x') !== m.shape.join('x'))
      refuse(`variable ${v.name} has shape [${m.shape.join(', ')}] in the model but [${v.shape.join(', ')}] in the checkpoint`);
  });
}
