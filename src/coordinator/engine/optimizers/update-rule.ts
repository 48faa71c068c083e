// The contract between the coordinator's optimizer step and one update rule.
//
// The coordinator owns one flat Float32Array of every trainable value (in the workers' agreed
// variable order), the summed gradient of the same length, and `slotCount` state vectors of the
// same length. It may cut that range into slices (e.g. one per thread) and call `apply` once per
// slice: every rule is purely elementwise, so the result does not depend on the cut.

import type { OptimizerName } from '../../../config/types.ts';

export interface UpdateRule {
  readonly name: OptimizerName;
  readonly slotCount: number; // number of state vectors, each as long as the trainable vector
  readonly slotInit: readonly number[]; // initial value of each slot (e.g. adagrad: initialAccumulatorValue)
  /** In place over one slice: w and g and every slots[k] are the same index range. lr is this step's learning rate, t the 1-based count of updates including this one. */
  apply(w: Float32Array, g: Float32Array, slots: Float32Array[], lr: number, t: number): void;
}
