// What the eval line holds for a built-in metric: the key it is logged under, and which outputs
// (by their loss) it is measured for, both read from the metric table (src/shared/metrics-table.ts).
// The validator checks a config's metrics with these; the evaluation computes and names them with
// the same.
import type { LossEntry } from './types.ts';

export { metricKey, metricSuits } from '../metrics-table.ts';

/**
 * One output of a model with several, as a monitor or a metric sees it: its name, its loss, and
 * its classes (the last dimension) once the model is built (null before: not known yet).
 */
export interface OutputKind {
  name: string;
  loss: LossEntry;
  classes: number | null;
}
