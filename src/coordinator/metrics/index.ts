// The eval metrics a config names (`metrics:`), from what the workers return: sums of counts and
// errors over every rank and chunk, and the scores of every row for AUC. Nothing here averages a
// per-worker or per-batch ratio, so each figure is the one a single process computes over the
// whole eval set.
import { hasClasses, lossOf } from '../../config/loss.ts';
import { LOSSES } from '../../shared/losses-table.ts';
import { METRICS, type MetricName, type MetricTraits } from '../../shared/metrics-table.ts';
import type { Config, LossEntry, MetricSpec } from '../../config/types.ts';
import { metricKey, metricSuits, type OutputKind } from '../../config/metric-keys.ts';
import { ConfigError } from '../../shared/errors.ts';
import { sizeOf, type ModelLayout } from '../../shared/layout.ts';
import type { WorkerMetrics } from '../../shared/protocol.ts';
import { macroAuc } from './auc.ts';
import { countMetric, type ClassCounts, type CountMetric } from './counts.ts';
import { finalizeCustom, loadCustomMetric, type CustomMetricModule } from './custom.ts';

export interface EvalMetrics {
  specs: MetricSpec[];
  custom: CustomMetricModule[]; // the { module } entries, in order
}

/** null when the config names no metrics; custom modules are imported (and checked) here. */
export async function loadEvalMetrics(cfg: Config): Promise<EvalMetrics | null> {
  if (cfg.metrics === null) return null;
  const custom: CustomMetricModule[] = [];
  for (const [i, m] of cfg.metrics.entries()) if ('module' in m) custom.push(await loadCustomMetric(m.module, m.name, `metrics[${i}]`));
  return { specs: cfg.metrics, custom };
}

/** What the workers compute in `eval` for these metrics; null: only the shipped figures. */
export function workerMetrics(specs: MetricSpec[] | null): WorkerMetrics | null {
  if (specs === null) return null;
  const needed = (what: MetricTraits['needs']) => specs.some((m) => !('module' in m) && METRICS[m.name].needs === what);
  return {
    counts: needed('counts'),
    scores: needed('scores'),
    custom: specs.flatMap((m, i) => ('module' in m ? [{ module: m.module, keyPath: `metrics[${i}]` }] : [])),
  };
}

/** Whether every row's scores and labels come back (auc): the output regions must hold them too. */
export function needsScores(specs: MetricSpec[] | null): boolean {
  return workerMetrics(specs)?.scores ?? false;
}

/** Each output of the model with its loss and classes (the last dimension of its shape). */
export function outputKinds(cfg: Pick<Config, 'loss'>, layout: Pick<ModelLayout, 'outputs'>): OutputKind[] {
  return layout.outputs.map((o) => ({
    name: o.name,
    loss: lossOf(cfg.loss, o.name)!,
    classes: (o.shape[o.shape.length - 1] as number | null) ?? 1,
  }));
}

/**
 * Whether `spec` is measured for an output: a built-in metric whose loss suits it (topK: with
 * more classes than k), a custom module always.
 */
export function appliesTo(spec: MetricSpec, o: OutputKind, k: number): boolean {
  if ('module' in spec) return true;
  return metricSuits(spec.name, o.loss) && (spec.name !== 'topK' || (o.classes ?? 0) > k);
}

/** Checks the metrics against the model the workers built (known once they are ready). */
export function checkMetricsFit(cfg: Config, layout: ModelLayout): void {
  const i = cfg.metrics?.findIndex((m) => !('module' in m) && m.name === 'topK') ?? -1;
  if (i < 0) return;
  if (layout.outputs.length > 1) {
    // Several outputs: topK applies to the categorical outputs with more classes than k; one is enough.
    const outputs = outputKinds(cfg, layout);
    if (outputs.some((o) => appliesTo(cfg.metrics![i]!, o, cfg.eval.topK))) return;
    const kinds = outputs.filter((o) => metricSuits('topK', o.loss)).map((o) => `'${o.name}' ${o.classes}`);
    throw new ConfigError(
      'eval.topK',
      `is ${cfg.eval.topK}, but metrics[${i}] topK needs an output with more classes than k, and the categorical outputs have ${kinds.join(', ')} classes`,
      'lower eval.topK, or remove topK from metrics',
    );
  }
  const classes = layout.outputShape[layout.outputShape.length - 1] ?? 0;
  if (classes <= cfg.eval.topK) {
    throw new ConfigError(
      'eval.topK',
      `is ${cfg.eval.topK}, but metrics[${i}] topK needs more classes than k and the model has ${classes}`,
      classes > 1 ? `set eval.topK to at most ${classes - 1}, or remove topK from metrics` : 'remove topK from metrics',
    );
  }
}

/** Totals over the whole eval set, as evaluate() gathers them (for one output of the model). */
export interface EvalTotals {
  n: number;
  correct: number;
  topK: number;
  abs: number;
  sq: number;
  counts: ClassCounts | null;
  /** AUC: m rows of `width` scores and their labels (class indices, or `width` 0/1 for binary). */
  scores: { values: Float32Array; labels: Float32Array; width: number } | null;
  custom: Record<string, number>[]; // per custom module, its summed named sums
}

/** How AUC reads an output's scores: one-vs-rest per class, or each output against its own 0/1 labels (the loss's table). */
function aucLayout(loss: LossEntry): 'classes' | 'outputs' {
  return typeof loss === 'string' && LOSSES[loss].aucLayout === 'outputs' ? 'outputs' : 'classes';
}

type BuiltinSpec = Exclude<MetricSpec, { module: string }>;
const counted = (m: CountMetric, spec: BuiltinSpec, t: EvalTotals) => (t.counts ? countMetric(m, spec.average ?? 'macro', t.counts) : null);

/**
 * How each built-in metric's value comes from one output's totals, keyed by the names of the
 * metric table (src/shared/metrics-table.ts): a metric without an entry here does not compile.
 */
const COMPUTE: Record<MetricName, (spec: BuiltinSpec, loss: LossEntry, t: EvalTotals) => number | null> = {
  accuracy: (_, __, t) => t.correct / t.n,
  topK: (_, __, t) => t.topK / t.n,
  precision: (spec, _, t) => counted('precision', spec, t),
  recall: (spec, _, t) => counted('recall', spec, t),
  f1: (spec, _, t) => counted('f1', spec, t),
  auc: (_, loss, t) => (t.scores ? macroAuc(t.scores.values, t.scores.labels, t.scores.width, aucLayout(loss)) : null),
  mae: (_, __, t) => t.abs / t.n,
  rmse: (_, __, t) => Math.sqrt(t.sq / t.n),
};

/** One metric's value from one output's totals. */
function builtinValue(spec: BuiltinSpec, loss: LossEntry, t: EvalTotals): number | null {
  return COMPUTE[spec.name](spec, loss, t);
}

/** Each metric's value, keyed as metrics.jsonl logs it, in the config's order. */
export function computeMetrics(m: EvalMetrics, loss: LossEntry, t: EvalTotals): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  let c = 0;
  for (const spec of m.specs) {
    if ('module' in spec) {
      Object.assign(out, finalizeCustom(m.custom[c]!, t.custom[c]!, t.n));
      c++;
      continue;
    }
    out[metricKey(spec)] = builtinValue(spec, loss, t);
  }
  return out;
}

/**
 * A model with several outputs: each metric for each output it applies to (appliesTo), keyed
 * `<key>.<output>` (a custom module's values `<name>.<key>.<output>`), in the config's order and,
 * within a metric, the model's output order. `totals[i]` are output i's.
 */
export function computeOutputMetrics(m: EvalMetrics, outputs: OutputKind[], k: number, totals: EvalTotals[]): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  let c = 0;
  for (const spec of m.specs) {
    for (const [i, o] of outputs.entries()) {
      if (!appliesTo(spec, o, k)) continue;
      if ('module' in spec) {
        for (const [key, v] of Object.entries(finalizeCustom(m.custom[c]!, totals[i]!.custom[c]!, totals[i]!.n))) out[`${key}.${o.name}`] = v;
      } else {
        out[`${metricKey(spec)}.${o.name}`] = builtinValue(spec, o.loss, totals[i]!);
      }
    }
    if ('module' in spec) c++;
  }
  return out;
}

/** Scores per row (K) and label values per row for AUC, given the model's output shape. */
export function scoreShape(loss: LossEntry, outputShape: (number | null)[]): { width: number; rowsPerSample: number; labelWidth: number } {
  const out = outputShape.slice(1) as number[];
  const size = sizeOf(out);
  // A row is a position of the output (one per sample on an [n, K] output) with its last axis's K scores.
  const width = out[out.length - 1] ?? 1;
  return { width, rowsPerSample: size / width, labelWidth: aucLayout(loss) === 'outputs' ? width : 1 };
}

/**
 * The bytes one eval row's scores and labels take in a worker's output region with auc (0
 * without): for each output whose loss has classes, one after another (EvaluatedMessage.outputs).
 * The output region is sized for the larger of this and a row's predictions.
 */
export function scoreBytesPerRow(cfg: Pick<Config, 'loss' | 'metrics'>, layout: Pick<ModelLayout, 'outputs'>): number {
  if (!needsScores(cfg.metrics)) return 0;
  let floats = 0;
  for (const o of outputKinds(cfg, layout)) {
    if (!hasClasses(o.loss)) continue;
    const sh = scoreShape(o.loss, layout.outputs.find((p) => p.name === o.name)!.shape);
    floats += sh.rowsPerSample * (sh.width + sh.labelWidth);
  }
  return floats * 4;
}
