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
//
// Who calls it, per BatchNormalization layer and micro-batch: on wasm the fused kernels
// (src/worker/wasm-kernels/batch-norm-train.ts) three times, [R, Σx] (C + 1 values), Σ(x - mean)²
// (C), then in the gradient [R, Σdy, Σdy·(x - mean), dmean, dvariance] (4C + 1); on the backends
// without them, src/worker/sync-batch-norm-ops.ts, whose gradient sends [R, Σdy, Σdy·(x - mean)]
// (2C + 1). Workers that took different paths for one layer would send different lengths: the
// coordinator's relay (src/coordinator/engine/batch-norm-relay.ts) then says so and answers null.

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
