// The numbers of a run, computed once from what read-run.ts read, and printed as a text table.
// The HTML page shows the same rows (html.ts), so the terminal and the page never disagree.
import { METRICS, metricOfKey } from '../shared/metrics-table.ts';
import { fmtInt, fmtLoss, fmtMs, fmtPct, fmtSig, listSteps } from './format.ts';
import { metricBase, outputFigure, outputNames } from './outputs.ts';
import type { RunData, TrainPoint } from './read-run.ts';
import { maxOf } from './scale.ts';

export interface At {
  step: number;
  value: number;
}

/** The last value of a metric (which may be NaN/Infinity) and its best finite value. */
export interface LastBest {
  last: At | null;
  best: At | null;
}

export const PHASES = ['compute_max', 'compute_min', 'sync', 'data', 'other', 'step'] as const;
export type Phase = (typeof PHASES)[number];

export interface Summary {
  name: string;
  runDir: string;
  steps: number | null; // the highest step any line names
  epochs: number | null; // epochs touched: the highest (0-based) epoch + 1
  trainLines: number;
  workers: string | null;
  backend: string | null;
  batchSize: number | null;
  trainLoss: LastBest;
  nonFiniteLossSteps: number[]; // train lines whose loss is NaN or infinite
  evalCount: number;
  k: number | null;
  evalLoss: LastBest;
  evalAccuracy: LastBest;
  evalTopK: LastBest;
  evalMae: LastBest;
  /** A model with several outputs: each output's figures (last and best), in the model's order; none with one output. */
  evalOutputs: { output: string; loss: LastBest; accuracy: LastBest; topK: LastBest; mae: LastBest }[];
  /** The config's metrics (eval lines' `metrics`), in the order first logged; none without `metrics`. */
  evalMetrics: { key: string; lastBest: LastBest }[];
  medianSamplesPerSec: number | null;
  /** Mean ms per step, weighted by the steps each line covers; null without a usable line. */
  phaseMs: Record<Phase, number> | null;
  phaseSteps: number; // the steps those means cover
  skippedSteps: number[];
  failures: { step: number; ranks: number[]; action: string; message: string }[];
  checkpoints: number[];
  /** checkpoint.best: the last best/ written (its step and value). */
  best: { step: number; monitor: string; value: number } | null;
  /** Early stopping ended the run: at this step, and why. */
  stopped: { step: number; message: string } | null;
  /** restoreBest: final/ holds the weights of this step. */
  restoredFrom: number | null;
  /** The plateau schedule's reductions of the learning rate. */
  lrChanges: { step: number; from: number; to: number }[];
  finalModel: string | null;
  finalEmaModel: string | null;
  unreadableLines: number;
  tornLastLine: boolean;
}

const finite = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

function lastBest<T extends { step: number }>(rows: T[], get: (r: T) => number | null, better: 'min' | 'max'): LastBest {
  let last: At | null = null;
  let best: At | null = null;
  for (const r of rows) {
    const v = get(r);
    if (v === null) continue; // not measured (e.g. accuracy of a regression)
    last = { step: r.step, value: v };
    if (!Number.isFinite(v)) continue;
    if (!best || (better === 'min' ? v < best.value : v > best.value)) best = { step: r.step, value: v };
  }
  return { last, best };
}

/** The keys of the eval lines' `metrics` objects, in the order they first appear. */
export function metricKeys(evals: RunData['evals']): string[] {
  const keys = new Set<string>();
  for (const e of evals) for (const k of Object.keys(e.metrics ?? {})) keys.add(k);
  return [...keys];
}

/**
 * Which way a metric improves; null for a custom metric's values (`<name>.<key>`): unknown. With
 * several outputs a key ends in `.<output>`: it is read without it.
 */
export function metricBetter(key: string, outputs: readonly string[] = []): 'max' | 'min' | null {
  const base = metricBase(key, outputs).base;
  if (base.includes('.')) return null;
  const metric = metricOfKey(base);
  return metric ? METRICS[metric].direction : 'max';
}

/** Whether a metric reads as a percentage (accuracy, top_k), with or without its output. */
export function metricPercent(key: string, outputs: readonly string[] = []): boolean {
  const metric = metricOfKey(metricBase(key, outputs).base);
  return metric ? METRICS[metric].percent : false;
}

/** Accuracies as percentages, the other metrics as numbers. */
export function fmtMetric(key: string, outputs: readonly string[] = []): (v: number) => string {
  return metricPercent(key, outputs) ? (v) => fmtPct(v) : (v) => fmtSig(v, 4);
}

export function median(xs: number[]): number | null {
  const v = xs.filter(finite).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
}

/** "other": the part of a step that is neither the slowest worker's compute, sync nor data. */
export function otherMs(t: TrainPoint): number {
  return t.step_ms - t.compute_max_ms - t.sync_ms - t.data_ms;
}

/**
 * How many steps each train line averages over: the steps since the previous line, less the
 * skipped steps among them (a skip line's `step` is the 0-based index of the step not applied).
 */
export function lineWeights(train: TrainPoint[], skipSteps: number[]): number[] {
  let prev = 0;
  return train.map((t) => {
    const skipped = skipSteps.filter((s) => s + 1 > prev && s + 1 <= t.step).length;
    const w = Math.max(1, t.step - prev - skipped);
    prev = t.step;
    return w;
  });
}

function meanPhases(run: RunData, skipSteps: number[]): { ms: Record<Phase, number> | null; steps: number } {
  const weights = lineWeights(run.train, skipSteps);
  const sum: Record<Phase, number> = { compute_max: 0, compute_min: 0, sync: 0, data: 0, other: 0, step: 0 };
  let total = 0;
  run.train.forEach((t, i) => {
    const row: Record<Phase, number> = {
      compute_max: t.compute_max_ms,
      compute_min: t.compute_min_ms,
      sync: t.sync_ms,
      data: t.data_ms,
      other: otherMs(t),
      step: t.step_ms,
    };
    if (!PHASES.every((p) => finite(row[p]))) return;
    for (const p of PHASES) sum[p] += row[p] * weights[i]!;
    total += weights[i]!;
  });
  if (total === 0) return { ms: null, steps: 0 };
  for (const p of PHASES) sum[p] /= total;
  return { ms: sum, steps: total };
}

function describeDevices(run: RunData): { workers: string | null; backend: string | null } {
  const dev = run.config?.devices as { gpus?: unknown; simulate?: unknown; backend?: unknown } | undefined;
  const recorded = run.trainerState?.workers;
  let workers: string | null = null;
  if (dev && typeof dev.simulate === 'number' && dev.simulate > 0) {
    workers = `${recorded ?? dev.simulate} (simulated GPUs on the CPU)`;
  } else if (dev && Array.isArray(dev.gpus)) {
    workers = `${recorded ?? dev.gpus.length} (GPUs ${dev.gpus.join(', ')})`;
  } else if (typeof recorded === 'number') {
    workers = `${recorded}${dev?.gpus === 'all' ? ' (all visible GPUs)' : ''}`;
  } else if (dev?.gpus === 'all') {
    workers = 'all visible GPUs';
  }
  const backend = run.trainerState?.backend ?? (typeof dev?.backend === 'string' ? (dev.backend === 'auto' ? 'auto (chosen at run time)' : dev.backend) : null);
  return { workers, backend };
}

export function summarize(run: RunData): Summary {
  const skippedSteps = run.events.filter((e) => e.type === 'skip').map((e) => e.step);
  const allSteps = [...run.train, ...run.evals, ...run.events].map((r) => r.step).filter(finite);
  const epochs = [...run.train, ...run.evals].map((r) => r.epoch).filter(finite);
  const evalRows = run.evals;
  const outputs = outputNames(evalRows);
  const phases = meanPhases(run, skippedSteps);
  const training = run.config?.training as { batchSize?: unknown } | undefined;
  return {
    name: run.name,
    runDir: run.runDir,
    steps: allSteps.length ? maxOf(allSteps) : null,
    epochs: epochs.length ? maxOf(epochs) + 1 : null,
    trainLines: run.train.length,
    ...describeDevices(run),
    batchSize: typeof training?.batchSize === 'number' ? training.batchSize : (run.trainerState?.batchSize ?? null),
    trainLoss: lastBest(run.train, (t) => t.loss, 'min'),
    nonFiniteLossSteps: run.train.filter((t) => !finite(t.loss)).map((t) => t.step),
    evalCount: evalRows.length,
    k: evalRows.find((e) => finite(e.k))?.k ?? null,
    evalLoss: lastBest(evalRows, (e) => e.loss, 'min'),
    evalAccuracy: lastBest(evalRows, (e) => e.accuracy, 'max'),
    evalTopK: lastBest(evalRows, (e) => e.top_k, 'max'),
    // Several outputs: no model-wide MAE (null in the file, read as NaN), each output's instead.
    evalMae: outputs.length ? { last: null, best: null } : lastBest(evalRows, (e) => e.mae, 'min'),
    evalOutputs: outputs.map((o) => ({
      output: o,
      loss: lastBest(evalRows, (e) => outputFigure(e, 'loss', o), 'min'),
      accuracy: lastBest(evalRows, (e) => outputFigure(e, 'accuracy', o), 'max'),
      topK: lastBest(evalRows, (e) => outputFigure(e, 'top_k', o), 'max'),
      mae: lastBest(evalRows, (e) => outputFigure(e, 'mae', o), 'min'),
    })),
    evalMetrics: metricKeys(evalRows).map((key) => {
      const better = metricBetter(key, outputs);
      const lb = lastBest(evalRows, (e) => e.metrics?.[key] ?? null, better ?? 'max');
      return { key, lastBest: better ? lb : { last: lb.last, best: null } };
    }),
    medianSamplesPerSec: median(run.train.map((t) => t.samples_per_sec)),
    phaseMs: phases.ms,
    phaseSteps: phases.steps,
    skippedSteps,
    failures: run.events.filter((e) => e.type === 'failure').map(({ step, ranks, action, message }) => ({ step, ranks, action, message })),
    checkpoints: run.checkpoints.map((c) => c.step),
    ...watchSummary(run),
    finalModel: run.finalModel,
    finalEmaModel: run.finalEmaModel,
    unreadableLines: run.unreadable.length,
    tornLastLine: run.unreadable.some((u) => u.torn),
  };
}

function watchSummary(run: RunData): Pick<Summary, 'best' | 'stopped' | 'restoredFrom' | 'lrChanges'> {
  const best = run.watch.filter((w) => w.type === 'best').at(-1);
  const stop = run.watch.filter((w) => w.type === 'stop').at(-1);
  const restore = run.watch.filter((w) => w.type === 'restore').at(-1);
  return {
    // A watch line is read from a file: String() keeps these strings when a field is missing.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion
    best: best ? { step: best.step, monitor: String(best.monitor), value: best.value } : null,
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion
    stopped: stop ? { step: stop.step, message: String(stop.message) } : null,
    restoredFrom: restore ? restore.from_step : null,
    lrChanges: run.watch.flatMap((w) => (w.type === 'lr' ? [{ step: w.step, from: w.from, to: w.to }] : [])),
  };
}

// ---- rows: what both the terminal table and the HTML table show ------------------------------

export interface Row {
  label: string;
  value: string;
  warn?: boolean; // something the reader should look at
}

const at = (a: At | null, fmt: (v: number) => string) => (a ? `${fmt(a.value)} (step ${a.step})` : '-');

function lastBestText(lb: LastBest, fmt: (v: number) => string): string {
  if (!lb.last) return '-';
  if (!lb.best) return `last ${at(lb.last, fmt)}`;
  if (lb.best.step === lb.last.step && lb.best.value === lb.last.value) return `last ${at(lb.last, fmt)}, also the best`;
  return `last ${at(lb.last, fmt)}, best ${at(lb.best, fmt)}`;
}

export function summaryRows(s: Summary): Row[] {
  const rows: Row[] = [];
  rows.push({ label: 'run', value: `${s.name} (${s.runDir})` });
  const steps = s.steps === null ? '-' : fmtInt(s.steps);
  rows.push({
    label: 'steps',
    value: `${steps}${s.epochs === null ? '' : `, ${s.epochs} epoch${s.epochs === 1 ? '' : 's'}`}${s.batchSize ? `, global batch ${s.batchSize}` : ''}`,
  });
  rows.push({ label: 'workers', value: s.workers ?? 'not recorded (no config.yaml)' });
  rows.push({ label: 'backend', value: s.backend ?? 'not recorded' });
  if (s.trainLines === 0) {
    rows.push({ label: 'train loss', value: 'no training line', warn: true });
  } else {
    rows.push({ label: 'train loss', value: `final ${at(s.trainLoss.last, fmtLoss)}, best ${at(s.trainLoss.best, fmtLoss)}` });
  }
  if (s.nonFiniteLossSteps.length) {
    rows.push({
      label: 'non-finite loss',
      value: `${s.nonFiniteLossSteps.length} line(s), steps ${listSteps(s.nonFiniteLossSteps)}; left out of the charts`,
      warn: true,
    });
  }
  if (s.evalCount === 0) {
    rows.push({ label: 'eval', value: 'none in this run' });
  } else {
    rows.push({ label: 'eval loss', value: `${lastBestText(s.evalLoss, fmtLoss)}; ${s.evalCount} eval${s.evalCount === 1 ? '' : 's'}` });
    if (s.evalAccuracy.last) rows.push({ label: 'eval accuracy', value: lastBestText(s.evalAccuracy, (v) => fmtPct(v)) });
    if (s.evalTopK.last) rows.push({ label: `eval top-${s.k ?? 'k'}`, value: lastBestText(s.evalTopK, (v) => fmtPct(v)) });
    if (!s.evalAccuracy.last && s.evalMae.last) rows.push({ label: 'eval MAE', value: lastBestText(s.evalMae, fmtLoss) });
    // Several outputs: each output's figures, named as the eval line names them.
    for (const o of s.evalOutputs) {
      rows.push({ label: `eval loss.${o.output}`, value: lastBestText(o.loss, fmtLoss) });
      if (o.accuracy.last) rows.push({ label: `eval accuracy.${o.output}`, value: lastBestText(o.accuracy, (v) => fmtPct(v)) });
      if (o.topK.last) rows.push({ label: `eval top-${s.k ?? 'k'}.${o.output}`, value: lastBestText(o.topK, (v) => fmtPct(v)) });
      if (!o.accuracy.last && o.mae.last) rows.push({ label: `eval MAE.${o.output}`, value: lastBestText(o.mae, fmtLoss) });
    }
    // The config's metrics; accuracy, top-k and (without accuracy) MAE have their rows above
    // already, the same values (of the model, or of each output).
    const outputs = s.evalOutputs.map((o) => o.output);
    const shown = (key: string): boolean => {
      const { base, output } = metricBase(key, outputs);
      const o = s.evalOutputs.find((x) => x.output === output);
      const hasAccuracy = o ? o.accuracy.last !== null : s.evalAccuracy.last !== null;
      return base === 'accuracy' || base === 'top_k' || (base === 'mae' && !hasAccuracy);
    };
    for (const m of s.evalMetrics) {
      if (shown(m.key)) continue;
      rows.push({ label: `eval ${m.key}`, value: lastBestText(m.lastBest, fmtMetric(m.key, outputs)) });
    }
  }
  rows.push({
    label: 'samples/s',
    value: s.medianSamplesPerSec === null ? '-' : `${fmtInt(s.medianSamplesPerSec)} (median over ${s.trainLines} line${s.trainLines === 1 ? '' : 's'})`,
  });
  rows.push({
    label: 'skipped steps',
    value: s.skippedSteps.length ? `${s.skippedSteps.length}: ${listSteps(s.skippedSteps)}` : 'none',
    warn: s.skippedSteps.length > 0,
  });
  rows.push({
    label: 'worker failures',
    value: s.failures.length
      ? `${s.failures.length}: ${s.failures
          .slice(0, 4)
          .map((f) => `step ${f.step} rank ${f.ranks.join(',')} (${f.action})`)
          .join('; ')}${s.failures.length > 4 ? '; ...' : ''}`
      : 'none',
    warn: s.failures.length > 0,
  });
  rows.push({ label: 'checkpoints', value: s.checkpoints.length ? `${s.checkpoints.length}: ${s.checkpoints.map((k) => `step-${k}`).join(', ')}` : 'none' });
  if (s.best) rows.push({ label: 'best checkpoint', value: `step ${s.best.step}, ${s.best.monitor} ${fmtLoss(s.best.value)} (best/)` });
  if (s.lrChanges.length) {
    const shown = s.lrChanges
      .slice(0, 4)
      .map((c) => `step ${c.step} ${Number(c.from.toPrecision(6))} → ${Number(c.to.toPrecision(6))}`)
      .join('; ');
    rows.push({
      label: 'lr lowered',
      value: `${s.lrChanges.length} time${s.lrChanges.length === 1 ? '' : 's'} (plateau): ${shown}${s.lrChanges.length > 4 ? '; ...' : ''}`,
    });
  }
  if (s.stopped) rows.push({ label: 'stopped early', value: s.stopped.message.replace(/^early stopping /, '') });
  rows.push({
    label: 'final model',
    value: s.finalModel
      ? `${s.finalModel}${s.finalEmaModel ? ` (EMA: ${s.finalEmaModel})` : ''}${s.restoredFrom === null ? '' : `: the weights of step ${s.restoredFrom} (restoreBest)`}`
      : 'none (the run did not finish, or is still running)',
    warn: !s.finalModel,
  });
  if (s.unreadableLines) {
    const torn = s.tornLastLine ? 'a torn last line' : '';
    const other = s.unreadableLines - (s.tornLastLine ? 1 : 0);
    rows.push({
      label: 'ignored lines',
      value: [torn, other ? `${other} malformed line${other === 1 ? '' : 's'}` : ''].filter(Boolean).join(' and '),
      warn: true,
    });
  }
  return rows;
}

export interface PhaseRow {
  phase: Phase;
  label: string;
  ms: number;
  pct: number; // of the step
  additive: boolean; // part of compute max + sync + data + other = step
}

export const PHASE_LABELS: Record<Phase, string> = {
  compute_max: 'compute (slowest worker)',
  compute_min: 'compute (fastest worker)',
  sync: 'sync (reduce + update)',
  data: 'data (staging)',
  other: 'other',
  step: 'step',
};

export function phaseRows(s: Summary): PhaseRow[] {
  if (!s.phaseMs) return [];
  const step = s.phaseMs.step;
  return PHASES.map((p) => ({
    phase: p,
    label: PHASE_LABELS[p],
    ms: s.phaseMs![p],
    pct: step > 0 ? s.phaseMs![p] / step : NaN,
    additive: p !== 'compute_min' && p !== 'step',
  }));
}

/** The summary as aligned text lines, for the terminal. */
export function summaryText(s: Summary): string[] {
  const rows = summaryRows(s);
  const w = Math.max(...rows.map((r) => r.label.length));
  const out = rows.map((r) => `  ${r.label.padEnd(w)}  ${r.value}`);
  const phases = phaseRows(s);
  if (phases.length) {
    out.push('');
    out.push(`  time per step (mean over ${fmtInt(s.phaseSteps)} step${s.phaseSteps === 1 ? '' : 's'})`);
    const lw = Math.max(...phases.map((p) => p.label.length));
    const ms = phases.map((p) => fmtMs(p.ms));
    const mw = Math.max(...ms.map((m) => m.length), 'ms'.length);
    out.push(`    ${''.padEnd(lw)}  ${'ms'.padStart(mw)}  ${'% step'.padStart(7)}`);
    phases.forEach((p, i) => {
      const pct = p.phase === 'step' ? '100%' : fmtPct(p.pct, 1);
      out.push(
        `    ${p.label.padEnd(lw)}  ${ms[i]!.padStart(mw)}  ${pct.padStart(7)}${p.additive ? '' : p.phase === 'compute_min' ? '  (not part of the sum)' : ''}`,
      );
    });
  }
  return out;
}
