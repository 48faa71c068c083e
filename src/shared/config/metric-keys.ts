// What the eval line holds for a built-in metric: the key it is logged under, and which outputs
// (by their loss) it is measured for. The validator checks a config's metrics with these; the
// evaluation computes and names them with the same.

import { CLASS_METRICS } from './defaults.ts';
import { hasClasses } from './loss.ts';
import type { LossEntry, MetricName, MetricSpec } from './types.ts';

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
  if (name === 'topK') return loss === 'categoricalCrossentropy' || loss === 'sparseCategoricalCrossentropy';
  return !CLASS_METRICS.includes(name) || hasClasses(loss);
}

/** The key a built-in metric is logged under (`precision_macro`, `top_k`, `auc`). */
export function metricKey(m: MetricSpec): string {
  if ('module' in m) return m.name;
  if (m.name === 'topK') return 'top_k';
  return m.average ? `${m.name}_${m.average}` : m.name;
}
