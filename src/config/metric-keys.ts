// What the eval line holds for a built-in metric: the key it is logged under, and which outputs
// (by their loss) it is measured for, both read from the metric table (src/shared/metrics-table.ts).
// The validator checks a config's metrics with these; the evaluation computes and names them with
// the same.
import { METRICS, type MetricName } from '../shared/metrics-table.ts';
import { hasClasses, hasTopK } from './loss.ts';
import type { LossEntry, MetricSpec } from './types.ts';

/**
 * One output of a model with several, as a monitor or a metric sees it: its name, its loss, and
 * its classes (the last dimension) once the model is built (null before: not known yet).
 */
export interface OutputKind {
  name: string;
  loss: LossEntry;
  classes: number | null;
}

/** Whether a built-in metric is measured for an output of this loss (its class count aside). */
export function metricSuits(name: MetricName, loss: LossEntry): boolean {
  const suits = METRICS[name].suits;
  return suits === 'any' || (suits === 'classes' ? hasClasses(loss) : hasTopK(loss));
}

/** The key a metric is logged under (`precision_macro`, `top_k`, `auc`; a custom module's name). */
export function metricKey(m: MetricSpec): string {
  if ('module' in m) return m.name;
  const key = METRICS[m.name].key;
  return m.average ? `${key}_${m.average}` : key;
}
