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
// (src/worker/wasm-kernels/batch-norm-train.ts) twice, the forward's momentsPartial below
// (2C + 1 values), then in the gradient [R, Σdy, Σdy·(x - mean), dmean, dvariance] (4C + 1); on
// the backends without them, src/worker/sync-batch-norm-ops.ts, whose gradient sends
// [R, Σdy, Σdy·(x - mean)] (2C + 1). Every worker of a run has the same backend; workers that took
// different paths for one layer would send different lengths, which the coordinator's relay
// (src/coordinator/engine/batch-norm-relay.ts) says on stderr before it answers `abandoned`.

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

/**
 * What the forward sends, in one exchange: [R, Σx (C values), Σ(x − m)² + (Σx)²/R (C values)],
 * with R this worker's rows and m its own mean. Summed over the workers, the last part is Σx² over
 * every row, each worker's share computed about its own mean (two passes, no one-pass
 * cancellation within a worker); `momentsOf` then cancels only what lies between the workers'
 * means (the pairwise combination of Chan, Golub and LeVeque): in float64, a relative error of
 * about 1e-16 · (mean / standard deviation)² in the variance. A worker without rows sends zeros.
 */
export function momentsPartial(rows: number, sums: ArrayLike<number>, squares: ArrayLike<number>): Float64Array {
  const C = sums.length;
  const out = new Float64Array(1 + 2 * C);
  out[0] = rows;
  for (let c = 0; c < C; c++) {
    const s = sums[c]!;
    out[1 + c] = s;
    out[1 + C + c] = squares[c]! + (rows > 0 ? (s * s) / rows : 0);
  }
  return out;
}

/** The global rows, mean and Σ(x − mean)² from the summed `momentsPartial`s (C channels). */
export function momentsOf(totals: Float64Array, C: number): { rows: number; mean: Float64Array; m2: Float64Array } {
  const rows = totals[0]!;
  const mean = new Float64Array(C);
  const m2 = new Float64Array(C);
  for (let c = 0; c < C; c++) {
    const s = totals[1 + c]!;
    mean[c] = s / rows;
    // Rounding may leave a constant channel a hair below zero.
    m2[c] = Math.max(0, totals[1 + C + c]! - (s * s) / rows);
  }
  return { rows, mean, m2 };
}
