// The one hook between BatchNormalization's training arithmetic and the other workers
// (training.syncBatchNorm). A BatchNormalization call in training that finds a sum installed
// computes its per-channel partial sums over this worker's rows, hands them here, and continues
// with the sums over every worker taking part in the step (of every machine); it computes what
// one process would over the union of their rows. Without one installed (syncBatchNorm off, or
// outside a training step: the model's build, eval, predict), or once a step's exchange was
// abandoned (a peer died: the coordinator redoes the step, so this one's results are thrown
// away), it gets null and uses its own rows' statistics.
//
// The exchange itself (src/worker/batch-norm-exchange.ts) is synchronous: a kernel cannot await.

/**
 * Sums `partial` element by element over every worker of the step, in rank order, and returns
 * the sums (a new array of the same length); null: use this worker's own statistics. Every
 * worker calls it the same number of times per step, with arrays of the same length each time
 * (the same layers in the same order).
 */
export type BatchNormSum = (partial: Float64Array) => Float64Array | null;

let installed: BatchNormSum | null = null;

/** Installs the exchange for a training step (null removes it). */
export function setBatchNormSum(sum: BatchNormSum | null): void {
  installed = sum;
}

/** The installed exchange, or null when the statistics are this worker's own. */
export function batchNormSum(): BatchNormSum | null {
  return installed;
}
