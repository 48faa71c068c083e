// The eval metrics a config names (`metrics:`), from what the workers return: sums of counts and
// errors over every rank and chunk, and the scores of every row for AUC. Nothing here averages a
// per-worker or per-batch ratio, so each figure is the one a single process computes over the
// whole eval set.
import type { Config, LossName, MetricSpec } from '../../shared/config/types.ts';
import { metricKey } from '../../shared/config/validate.ts';
import { ConfigError } from '../../shared/errors.ts';
import { sizeOf, type ModelLayout } from '../../shared/layout.ts';
import type { WorkerMetrics } from '../../shared/protocol.ts';
import { macroAuc } from './auc.ts';
import { countMetric, type ClassCounts } from './counts.ts';
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
  const named = (...names: string[]) => specs.some((m) => !('module' in m) && names.includes(m.name));
  return {
    counts: named('precision', 'recall', 'f1'),
    scores: named('auc'),
    custom: specs.flatMap((m, i) => ('module' in m ? [{ module: m.module, keyPath: `metrics[${i}]` }] : [])),
  };
}

/** Whether every row's scores and labels come back (auc): the output regions must hold them too. */
export function needsScores(specs: MetricSpec[] | null): boolean {
  return workerMetrics(specs)?.scores ?? false;
}

/** Checks the metrics against the model the workers built (known once they are ready). */
export function checkMetricsFit(cfg: Config, layout: ModelLayout): void {
  const i = cfg.metrics?.findIndex((m) => !('module' in m) && m.name === 'topK') ?? -1;
  if (i < 0) return;
  const classes = layout.outputShape[layout.outputShape.length - 1] ?? 0;
  if (classes <= cfg.eval.topK) {
    throw new ConfigError(
      'eval.topK',
      `is ${cfg.eval.topK}, but metrics[${i}] topK needs more classes than k and the model has ${classes}`,
      classes > 1 ? `set eval.topK to at most ${classes - 1}, or remove topK from metrics` : 'remove topK from metrics',
    );
  }
}

/** Totals over the whole eval set, as evaluate() gathers them. */
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

/** Each metric's value, keyed as metrics.jsonl logs it, in the config's order. */
export function computeMetrics(m: EvalMetrics, loss: LossName, t: EvalTotals): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  let c = 0;
  for (const spec of m.specs) {
    if ('module' in spec) {
      Object.assign(out, finalizeCustom(m.custom[c]!, t.custom[c]!, t.n));
      c++;
      continue;
    }
    const key = metricKey(spec);
    switch (spec.name) {
      case 'accuracy':
        out[key] = t.correct / t.n;
        break;
      case 'topK':
        out[key] = t.topK / t.n;
        break;
      case 'precision':
      case 'recall':
      case 'f1':
        out[key] = t.counts ? countMetric(spec.name, spec.average ?? 'macro', t.counts) : null;
        break;
      case 'auc':
        out[key] = t.scores ? macroAuc(t.scores.values, t.scores.labels, t.scores.width, loss === 'binaryCrossentropy' ? 'outputs' : 'classes') : null;
        break;
      case 'mae':
        out[key] = t.abs / t.n;
        break;
      case 'rmse':
        out[key] = Math.sqrt(t.sq / t.n);
        break;
    }
  }
  return out;
}

/** Scores per row (K) and label values per row for AUC, given the model's output shape. */
export function scoreShape(loss: LossName, outputShape: (number | null)[]): { width: number; rowsPerSample: number; labelWidth: number } {
  const out = outputShape.slice(1) as number[];
  const size = sizeOf(out);
  if (loss === 'binaryCrossentropy') return { width: size, rowsPerSample: 1, labelWidth: size };
  const width = out[out.length - 1] ?? 1;
  return { width, rowsPerSample: size / width, labelWidth: 1 };
}
