// BatchNormalization's training arithmetic with its batch statistics summed over every worker of
// the step (training.syncBatchNorm), as tf ops: for the backends without the fused kernels
// (tfjs's cpu backend, tfjs-node, tfjs-node-gpu; wasm has them, src/worker/fused-batch-norm.ts).
// N workers then compute what one process computes over the union of their rows: the output, the
// batch mean and biased variance (the caller moves the moving statistics with them), and dx.
//
// Why tf ops and synchronous reads: the exchange (src/worker/batch-norm-sum.ts) is a synchronous
// call after the forward's two passes and inside the gradient, so each step's partial sums are
// read back with dataSync. webgpu cannot read synchronously in Node (tfjs's webgpu readSync needs
// OffscreenCanvas), so syncBatchNorm is refused there before any of this runs.
//
// What runs, channel axis last (x is R rows of C channels once reshaped), in a tf.customGrad:
// - forward: Σx per channel on the device, then Σ(x - m)² about this worker's own mean m (two
//   passes: no E[x²] - mean² to cancel within a worker), exchanged once as
//   [R, Σx, Σ(x - m)² + (Σx)²/R] (batch-norm-sum.ts's momentsPartial) -> global Rg, mean and
//   biased variance (momentsOf). y = batchNorm(x, mean, variance, beta, gamma, epsilon).
// - gradient of y: Σdy and Σdy·(x - mean) exchanged as [R, Σdy, Σdy·(x - mean)] -> global;
//   dx = gamma/σ · (dy - Σdy/Rg - x̂ · Σdy·(x - mean) / (σ·Rg)), x̂ = (x - mean)/σ,
//   σ = sqrt(variance + epsilon). dgamma = Σ dy·x̂ and dbeta = Σ dy over THIS worker's rows: the
//   engine sums every worker's gradients of gamma and beta itself, so global sums would be
//   counted N times.
// - the mean and variance returned carry no gradient (made from the exchanged sums, outside the
//   customGrad): the caller only moves the moving statistics with them, never differentiates them.
// An exchange that answers null (the step was abandoned: a peer died, and the coordinator throws
// this step's results away) leaves that exchange with this worker's own rows and sums: no throw.
//
// Numerics: each partial sum is a float32 sum on the device, read back and combined over the
// workers in float64; the quotients (mean, variance, the gradient's two means) are taken in
// float64 and become float32 tensors once.
import type { GradSaveFunc, Tensor, Tensor1D, Tensor2D } from '@tensorflow/tfjs';
import type { TF } from '../nets/net-options.ts';
import { momentsOf, momentsPartial, type BatchNormSum } from './batch-norm-sum.ts';

/** The output, and the global batch statistics per channel (float32, shape [C]; no gradient). */
export interface SyncBatchNormResult {
  y: Tensor;
  mean: Tensor;
  variance: Tensor;
}

/**
 * BatchNormalization in training over every worker's rows: x float32, rank >= 2, channels on the
 * last axis; gamma and beta of shape [C]. Calls `sum` twice when differentiated (once in the
 * forward, once in the gradient), once otherwise; the same count on every worker.
 */
export function syncBatchNormOps(tf: TF, x: Tensor, gamma: Tensor, beta: Tensor, epsilon: number, sum: BatchNormSum): SyncBatchNormResult {
  const channels = checkInputs(x, gamma, beta);
  let stats: Moments | null = null;
  const op = tf.customGrad((...args) => {
    const [xIn, gammaIn, betaIn, save] = args as [Tensor, Tensor1D, Tensor1D, GradSaveFunc];
    stats = globalMoments(tf, asRows(tf, xIn, channels), sum);
    const mean = tf.tensor1d(stats.mean);
    const variance = tf.tensor1d(stats.variance);
    save([xIn, gammaIn, mean, variance]);
    return {
      value: tf.batchNorm(xIn, mean, variance, betaIn, gammaIn, epsilon),
      gradFunc: (dy: Tensor, saved: Tensor[]) => gradient(tf, dy, saved, epsilon, sum),
    };
  });
  const y = op(x, gamma, beta);
  // Made here, outside the customGrad, from the exchanged figures: constants to any gradient.
  const { mean, variance } = stats!;
  return { y, mean: tf.tensor1d(mean), variance: tf.tensor1d(variance) };
}

/** The per-channel batch mean and biased variance over every worker's rows (this worker's after a null exchange). */
interface Moments {
  mean: Float32Array;
  variance: Float32Array;
}

/** The channel count C, after checking what the arithmetic assumes of x, gamma and beta. */
function checkInputs(x: Tensor, gamma: Tensor, beta: Tensor): number {
  if (x.rank < 2) throw new Error(`syncBatchNormOps: x must have rank 2 or more (rows, then channels last), got shape [${x.shape}]`);
  if (x.dtype !== 'float32') throw new Error(`syncBatchNormOps: x must be float32, got ${x.dtype}`);
  const channels = x.shape[x.rank - 1]!;
  for (const [name, t] of [
    ['gamma', gamma],
    ['beta', beta],
  ] as const) {
    if (t.rank !== 1 || t.shape[0] !== channels)
      throw new Error(`syncBatchNormOps: ${name} must have shape [${channels}] (x's channels, its last axis), got [${t.shape}]`);
  }
  return channels;
}

/** x as [R, C]: R = every position of every example (written out: -1 cannot be inferred when R is 0). */
const asRows = (tf: TF, x: Tensor, channels: number): Tensor2D => tf.reshape(x, [x.size / channels, channels]);

/**
 * Two passes over this worker's rows (Σx, then Σ(x - m)² about its own mean m), one exchange
 * (batch-norm-sum.ts's momentsPartial: [R, Σx, Σ(x - m)² + (Σx)²/R]) -> the global rows, mean
 * and variance. Where the exchange answers null, this worker's own.
 */
function globalMoments(tf: TF, rows: Tensor2D, sum: BatchNormSum): Moments {
  const [r, channels] = rows.shape;
  const sums = Float64Array.from(tf.sum(rows, 0).dataSync());
  const own = sums.map((s) => (r > 0 ? s / r : 0));
  const squares = Float64Array.from(tf.sum(tf.square(tf.sub(rows, tf.tensor1d(Float32Array.from(own)))), 0).dataSync());
  const partial = momentsPartial(r, sums, squares);
  const { rows: rowsGlobal, mean, m2 } = momentsOf(exchange(sum, partial, 'the sums of x and (x - mean)²') ?? partial, channels);
  return { mean: Float32Array.from(mean), variance: Float32Array.from(m2, (v) => v / rowsGlobal) };
}

/**
 * dx from the global Σdy and Σdy·(x - mean) (exchanged with R: [R, Σdy, Σdy·(x - mean)]);
 * dgamma and dbeta from this worker's rows only (the engine sums them over the workers).
 */
function gradient(tf: TF, dy: Tensor, saved: Tensor[], epsilon: number, sum: BatchNormSum): Tensor[] {
  const [x, gamma, mean, variance] = saved as [Tensor, Tensor1D, Tensor1D, Tensor1D];
  return tf.tidy(() => {
    const channels = gamma.shape[0];
    const rows = asRows(tf, x, channels);
    const dyRows = asRows(tf, dy, channels);
    const centred = tf.sub(rows, mean);
    const sumDy = tf.sum(dyRows, 0);
    const sumDyCentred = tf.sum(tf.mul(dyRows, centred), 0);
    const sums = withRowCount(rows.shape[0], tf.concat([sumDy, sumDyCentred]).dataSync());
    const sumsGlobal = exchange(sum, sums, "the gradient's sums of dy and dy·(x - mean)") ?? sums;
    const rowsGlobal = sumsGlobal[0]!;
    const meanDy = tf.tensor1d(quotients(sumsGlobal, 1, channels, rowsGlobal));
    const meanDyCentred = tf.tensor1d(quotients(sumsGlobal, 1 + channels, channels, rowsGlobal));
    const invSigma = tf.rsqrt(tf.add(variance, epsilon));
    const normalised = tf.mul(centred, invSigma);
    const inner = tf.sub(tf.sub(dyRows, meanDy), tf.mul(normalised, tf.mul(meanDyCentred, invSigma)));
    const dx = tf.mul(tf.mul(gamma, invSigma), inner);
    return [tf.reshape(dx, x.shape), tf.mul(sumDyCentred, invSigma), sumDy];
  });
}

/** [R, sums...] in float64: what an exchange carries when the row count travels with the sums. */
function withRowCount(rows: number, sums: ArrayLike<number>): Float64Array {
  const out = new Float64Array(sums.length + 1);
  out[0] = rows;
  out.set(sums, 1);
  return out;
}

/** `sum` over the workers, its answer checked: the same length as the partial, or null (use this worker's own). */
function exchange(sum: BatchNormSum, partial: Float64Array, what: string): Float64Array | null {
  const total = sum(partial);
  if (total !== null && total.length !== partial.length)
    throw new Error(`syncBatchNormOps: the exchange of ${what} answered ${total.length} values for the ${partial.length} sent`);
  return total;
}

/** sums[from .. from + count) / divisor, divided in float64 and rounded to float32 once. */
function quotients(sums: Float64Array, from: number, count: number, divisor: number): Float32Array {
  return Float32Array.from(sums.subarray(from, from + count), (v) => v / divisor);
}
