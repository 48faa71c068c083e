// One entry per built-in eval metric (`metrics:` of a config): which way it improves, the losses
// it is measured for, what it asks of the workers beyond the shipped figures, and how it is
// logged and shown. Config checks and monitors, the coordinator's metrics and the report read it;
// how each value is computed from the gathered sums is src/coordinator/metrics/index.ts's table,
// keyed by the same names (a metric without one does not compile). No tfjs here: the
// coordinator and the report load this file.
// It imports nothing: the config's types import its names (which metric suits which loss and the
// key it is logged under are src/config/metric-keys.ts's, over the loss table).

export interface MetricTraits {
  /** Which way it improves: a monitor's default mode, the report's best value. */
  direction: 'min' | 'max'; // a MonitorMode
  /** The losses it is measured for: any, those with classes, those with a score per class (top-k). */
  suits: 'any' | 'classes' | 'scorePerClass';
  /** Whether it takes `average` (macro or micro) and is logged as `<key>_<average>`. */
  averaged: boolean;
  /** What the workers send for it beyond the shipped figures: per-class counts, every row's scores, or nothing. */
  needs: 'counts' | 'scores' | null;
  /** The key metrics.jsonl logs it under (before `_<average>`). */
  key: string;
  /** Whether the report shows it as a percentage. */
  percent: boolean;
}

const METRIC_TABLE = {
  accuracy: { direction: 'max', suits: 'classes', averaged: false, needs: null, key: 'accuracy', percent: true },
  topK: { direction: 'max', suits: 'scorePerClass', averaged: false, needs: null, key: 'top_k', percent: true },
  precision: { direction: 'max', suits: 'classes', averaged: true, needs: 'counts', key: 'precision', percent: false },
  recall: { direction: 'max', suits: 'classes', averaged: true, needs: 'counts', key: 'recall', percent: false },
  f1: { direction: 'max', suits: 'classes', averaged: true, needs: 'counts', key: 'f1', percent: false },
  auc: { direction: 'max', suits: 'classes', averaged: false, needs: 'scores', key: 'auc', percent: false },
  mae: { direction: 'min', suits: 'any', averaged: false, needs: null, key: 'mae', percent: false },
  rmse: { direction: 'min', suits: 'any', averaged: false, needs: null, key: 'rmse', percent: false },
} as const satisfies Record<string, MetricTraits>;

export type MetricName = keyof typeof METRIC_TABLE;
export const METRICS: Readonly<Record<MetricName, MetricTraits>> = METRIC_TABLE;
/** The built-in names, in the table's order (the order messages list them in). */
export const METRIC_NAMES = Object.keys(METRIC_TABLE) as readonly MetricName[];

/** The built-in metric a logged key (without its output) is of, or null (a custom metric's value, or unknown). */
export function metricOfKey(key: string): MetricName | null {
  const of = (n: MetricName) => key === METRICS[n].key || (METRICS[n].averaged && (key === `${METRICS[n].key}_macro` || key === `${METRICS[n].key}_micro`));
  return METRIC_NAMES.find(of) ?? null;
}
