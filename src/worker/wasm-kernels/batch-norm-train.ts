// Batch normalisation in training as two kernels of the wasm backend, under names of our own
// (tfjs has no such kernel): MgpuBatchNormTrain (x, gamma, beta → y, mean, variance) and its
// gradient MgpuBatchNormTrainGrad (x, dy, gamma, mean, variance, dmean, dvariance → dx, dgamma,
// dbeta), for a channel axis that is last (NHWC; any rank: R rows of C channels). tfjs-layers'
// BatchNormalization computes the same op by op (Mean, Sub, Square, Mean, then FusedBatchNorm) and
// differentiates that with a dozen more full passes; here the forward reads x three times and
// writes y once, the gradient reads x and dy twice and writes dx once. The layer call that
// runs them is src/worker/fused-batch-norm.ts.
//
// Numerics: the mean and the biased variance (tfjs's moments, which tfjs-layers' moving variance
// takes) in two passes with float64 sums, the second over x - mean, so a large mean does not
// cancel; the gradient's two sums in float64 too. In C (native/src/batch-norm.c) when the
// convolution addon is built, else the same loops below in JavaScript (MGPU_NATIVE_CONV=0 picks
// them, as it does for the convolutions), bit for bit the same.
//
// Synchronised statistics (training.syncBatchNorm): when a sum over the workers is installed
// (src/worker/batch-norm-sum.ts), each kernel runs its passes one by one (batch-norm.c exports
// them, as BatchNormPhases) and sums their float64 partial sums over every worker between them,
// so that N workers compute what one process computes over the union of their rows:
// - forward: this worker's Σx, then Σ(x - m)² about its own mean m (the same two passes), summed
//   in one exchange as [R, Σx, Σ(x - m)² + (Σx)²/R] (batch-norm-sum.ts's momentsPartial) → the
//   rows Rg, the mean and the biased variance (momentsOf); y from them as without. The mean and
//   variance outputs are the global ones.
// - gradient: [R, Σdy, Σdy·(x - mean), dmean, dvariance] summed (the gradients reaching the mean
//   and variance outputs too: one process would have one such gradient from all its rows) → dx
//   with Rg rows and the global sums. dgamma and dbeta stay this worker's own (its Σdy·x̂ and
//   Σdy): the engine sums every worker's weight gradients itself, and global ones would be
//   counted N times.
// The same two-pass numerics, with global sums. A worker without rows contributes zeros. When
// the sum gives null (a peer died: the step is redone and its results thrown away) the kernel
// computes its own rows' statistics as without a sum.
import type { GradConfig, NamedAttrMap, Tensor, TensorInfo } from '@tensorflow/tfjs';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';
import { batchNormSum, momentsOf, momentsPartial, type BatchNormSum } from '../batch-norm-sum.ts';
import { nativeConv, type BatchNormPhases, type BatchNormTrainFn, type BatchNormTrainGradFn } from './native-conv.ts';
import { f32, makeOutput, requireFloat32, type KernelArgs, type TF } from './util.ts';
import { BN_TRAIN, BN_TRAIN_GRAD } from '../fused-batch-norm.ts';

export interface BatchNormAttrs {
  epsilon: number;
}

/** The passes of batch-norm.c in JavaScript: float64 sums, float32 element-wise arithmetic (Math.fround), as the C loops do it. */
export const batchNormPhasesJs: BatchNormPhases = {
  batchNormSums(x, sums) {
    const C = sums.length;
    const R = x.length / C;
    sums.fill(0);
    for (let r = 0, i = 0; r < R; r++) for (let c = 0; c < C; c++, i++) sums[c]! += x[i]!;
  },
  batchNormSquaredDeviations(x, mu, m2) {
    const C = mu.length;
    const R = x.length / C;
    m2.fill(0);
    for (let r = 0, i = 0; r < R; r++) {
      for (let c = 0; c < C; c++, i++) {
        const d = x[i]! - mu[c]!;
        m2[c]! += d * d;
      }
    }
  },
  batchNormApply(x, gamma, beta, mean, variance, y, epsilon) {
    const C = gamma.length;
    const R = x.length / C;
    // From the float32 variance, as the gradient recomputes it.
    const scale = Float32Array.from(gamma, (g, c) => g / Math.sqrt(variance[c]! + epsilon));
    const f = Math.fround;
    for (let r = 0, i = 0; r < R; r++) for (let c = 0; c < C; c++, i++) y[i] = f(f(f(x[i]! - mean[c]!) * scale[c]!) + beta[c]!);
  },
  batchNormGradSums(x, dy, mean, sdy, sdxc) {
    const C = mean.length;
    const R = x.length / C;
    sdy.fill(0);
    sdxc.fill(0);
    for (let r = 0, i = 0; r < R; r++) {
      for (let c = 0; c < C; c++, i++) {
        const d = dy[i]!;
        sdy[c]! += d;
        sdxc[c]! += d * (x[i]! - mean[c]!);
      }
    }
  },
  batchNormGradParams(sdy, sdxc, variance, dgamma, dbeta, epsilon) {
    for (let c = 0; c < variance.length; c++) {
      dbeta[c] = sdy[c]!;
      dgamma[c] = sdxc[c]! * (1 / Math.sqrt(variance[c]! + epsilon));
    }
  },
  batchNormGradApply(x, dy, gamma, mean, variance, rows, sdy, sdxc, dmean, dvariance, dx, epsilon) {
    // dx = A · (dy - M) + B · (x - mean) + E: dy - M before the scaling, so that dy's mean
    // cancels in float32 as exactly as x's does (one row: dx is exactly 0).
    const C = gamma.length;
    const R = x.length / C;
    const A = new Float32Array(C);
    const M = new Float32Array(C);
    const B = new Float32Array(C);
    const E = new Float32Array(C);
    for (let c = 0; c < C; c++) {
      const inv = 1 / Math.sqrt(variance[c]! + epsilon);
      const g = gamma[c]!;
      A[c] = g * inv;
      M[c] = sdy[c]! / rows;
      B[c] = (-g * inv * inv * inv * sdxc[c]!) / rows + (dvariance ? (2 * dvariance[c]!) / rows : 0);
      E[c] = dmean ? dmean[c]! / rows : 0;
    }
    const f = Math.fround;
    for (let r = 0, i = 0; r < R; r++) for (let c = 0; c < C; c++, i++) dx[i] = f(f(f(A[c]! * f(dy[i]! - M[c]!)) + f(B[c]! * f(x[i]! - mean[c]!))) + E[c]!);
  },
};

/** mean, biased variance, y = (x - mean) · gamma / sqrt(variance + eps) + beta: batch-norm.c's batchNormTrain, from the passes. */
export const batchNormTrainJs: BatchNormTrainFn = (x, gamma, beta, y, mean, variance, epsilon) => {
  const js = batchNormPhasesJs;
  const C = gamma.length;
  const R = x.length / C;
  if (R === 0) {
    mean.fill(NaN);
    variance.fill(NaN);
    return;
  }
  const mu = new Float64Array(C);
  js.batchNormSums(x, mu);
  for (let c = 0; c < C; c++) mu[c]! /= R;
  const m2 = new Float64Array(C);
  js.batchNormSquaredDeviations(x, mu, m2);
  statistics(mu, m2, R, mean, variance);
  js.batchNormApply(x, gamma, beta, mean, variance, y, epsilon);
};

/** dx, dgamma, dbeta of batchNormTrainJs (dmean, dvariance: what reaches the mean and variance outputs; null = 0). */
export const batchNormTrainGradJs: BatchNormTrainGradFn = (x, dy, gamma, mean, variance, dmean, dvariance, dx, dgamma, dbeta, epsilon) => {
  const js = batchNormPhasesJs;
  const C = gamma.length;
  const sdy = new Float64Array(C);
  const sdxc = new Float64Array(C);
  js.batchNormGradSums(x, dy, mean, sdy, sdxc);
  js.batchNormGradParams(sdy, sdxc, variance, dgamma, dbeta, epsilon);
  // float32 → float64 is exact: the same arithmetic as on the floats themselves.
  const wide = (t: Float32Array | null) => (t ? Float64Array.from(t) : null);
  js.batchNormGradApply(x, dy, gamma, mean, variance, x.length / C, sdy, sdxc, wide(dmean), wide(dvariance), dx, epsilon);
};

/** The float32 mean and biased variance from the float64 mean and squared deviations over `rows` rows. */
function statistics(mu: Float64Array, m2: Float64Array, rows: number, mean: Float32Array, variance: Float32Array): void {
  for (let c = 0; c < mu.length; c++) {
    mean[c] = mu[c]!;
    variance[c] = m2[c]! / rows;
  }
}

/** What computes the loops: the addon's functions when it is built, else the JavaScript ones. */
function loops(): { forward: BatchNormTrainFn; backward: BatchNormTrainGradFn; phases: BatchNormPhases } {
  const addon = nativeConv().addon;
  if (!addon) return { forward: batchNormTrainJs, backward: batchNormTrainGradJs, phases: batchNormPhasesJs };
  return { forward: (...a) => addon.batchNormTrain(...a), backward: (...a) => addon.batchNormTrainGrad(...a), phases: addon };
}

function channels(kernel: string, x: TensorInfo, ...perChannel: [string, TensorInfo][]): number {
  const C = x.shape[x.shape.length - 1] ?? 0;
  if (x.shape.length < 1 || C === 0) throw new Error(`${kernel} (wasm, mgpu): x has shape [${x.shape}], needs a channel axis last`);
  for (const [name, t] of perChannel) {
    if (t.shape.length !== 1 || t.shape[0] !== C) throw new Error(`${kernel} (wasm, mgpu): ${name} has shape [${t.shape}], expected [${C}]`);
  }
  return C;
}

/** Float32Array views of heap tensors by name; null for an optional one that is missing. */
type Views<T> = { [K in keyof T]: undefined extends T[K] ? Float32Array | null : Float32Array };

/** A function giving fresh views of the tensors at each call: an allocation may grow the heap and detach older ones. */
function viewsOf<T extends Record<string, TensorInfo | undefined>>(backend: BackendWasm, tensors: T): () => Views<T> {
  return () => Object.fromEntries(Object.entries(tensors).map(([k, t]) => [k, t ? f32(backend, t) : null])) as Views<T>;
}

/** The installed sum of `partial` over every worker, checked for length; null: the exchange was abandoned. */
function exchange(kernel: string, sum: BatchNormSum, partial: Float64Array): Float64Array | null {
  const total = sum(partial);
  if (total && total.length !== partial.length) {
    throw new Error(`${kernel} (wasm, mgpu): the batch-norm sum over the workers gave ${total.length} values for ${partial.length}`);
  }
  return total;
}

/** The C channel slices [1 + k·C, 1 + (k+1)·C) of an exchanged array: its k-th per-channel sum, after the row count. */
const slice = (a: Float64Array, C: number, k: number): Float64Array => a.subarray(1 + k * C, 1 + (k + 1) * C);

type ForwardViews = () => Record<'x' | 'gamma' | 'beta' | 'y' | 'mean' | 'variance', Float32Array>;

/** The forward over every worker's rows: false (and nothing final written) when the sum abandons the exchange. */
function forwardSynced(ph: BatchNormPhases, sum: BatchNormSum, views: ForwardViews, C: number, epsilon: number): boolean {
  let v = views();
  const R = v.x.length / C;
  const sums = new Float64Array(C);
  ph.batchNormSums(v.x, sums);
  const squares = new Float64Array(C);
  ph.batchNormSquaredDeviations(
    v.x,
    sums.map((s) => (R > 0 ? s / R : 0)),
    squares,
  );
  const totals = exchange(BN_TRAIN, sum, momentsPartial(R, sums, squares));
  if (!totals) return false;
  const { rows, mean, m2 } = momentsOf(totals, C);
  v = views();
  statistics(mean, m2, rows, v.mean, v.variance);
  ph.batchNormApply(v.x, v.gamma, v.beta, v.mean, v.variance, v.y, epsilon);
  return true;
}

type GradViews = () => Record<'x' | 'dy' | 'gamma' | 'mean' | 'variance' | 'dx' | 'dgamma' | 'dbeta', Float32Array> &
  Record<'dmean' | 'dvariance', Float32Array | null>;

/** The gradient over every worker's rows (dgamma, dbeta this worker's own): false when the sum abandons the exchange. */
function gradientSynced(ph: BatchNormPhases, sum: BatchNormSum, views: GradViews, C: number, epsilon: number): boolean {
  let v = views();
  // [R, Σdy, Σdy·(x - mean), dmean, dvariance]: a missing dmean or dvariance contributes zeros.
  const partial = new Float64Array(1 + 4 * C);
  partial[0] = v.x.length / C;
  ph.batchNormGradSums(v.x, v.dy, v.mean, slice(partial, C, 0), slice(partial, C, 1));
  if (v.dmean) slice(partial, C, 2).set(v.dmean);
  if (v.dvariance) slice(partial, C, 3).set(v.dvariance);
  // This worker's own: the engine sums every worker's weight gradients itself.
  ph.batchNormGradParams(slice(partial, C, 0), slice(partial, C, 1), v.variance, v.dgamma, v.dbeta, epsilon);
  const totals = exchange(BN_TRAIN_GRAD, sum, partial);
  if (!totals) return false;
  v = views();
  const [sdy, sdxc, dmean, dvariance] = [0, 1, 2, 3].map((k) => slice(totals, C, k)) as [Float64Array, Float64Array, Float64Array, Float64Array];
  ph.batchNormGradApply(v.x, v.dy, v.gamma, v.mean, v.variance, totals[0]!, sdy, sdxc, dmean, dvariance, v.dx, epsilon);
  return true;
}

export function batchNormTrain(args: KernelArgs<BatchNormAttrs>): TensorInfo[] {
  const { backend, inputs, attrs } = args;
  const { x, gamma, beta } = inputs as { x: TensorInfo; gamma: TensorInfo; beta: TensorInfo };
  requireFloat32(BN_TRAIN, ['x', x], ['gamma', gamma], ['beta', beta]);
  const C = channels(BN_TRAIN, x, ['gamma', gamma], ['beta', beta]);
  const y = makeOutput(backend, x.shape);
  const mean = makeOutput(backend, [C]);
  const variance = makeOutput(backend, [C]);
  // Views only after the last allocation (an allocation may grow the heap and detach them).
  const views = viewsOf(backend, { x, gamma, beta, y, mean, variance });
  const { forward, phases } = loops();
  const sum = batchNormSum();
  if (sum && forwardSynced(phases, sum, views, C, attrs.epsilon)) return [y, mean, variance];
  const v = views();
  forward(v.x, v.gamma, v.beta, v.y, v.mean, v.variance, attrs.epsilon);
  return [y, mean, variance];
}

export function batchNormTrainGrad(args: KernelArgs<BatchNormAttrs>): TensorInfo[] {
  const { backend, inputs, attrs } = args;
  const { x, dy, gamma, mean, variance } = inputs as Record<'x' | 'dy' | 'gamma' | 'mean' | 'variance', TensorInfo>;
  // The gradients reaching the mean and variance outputs; missing: zero.
  const { dmean, dvariance } = inputs;
  requireFloat32(BN_TRAIN_GRAD, ['x', x], ['dy', dy], ['gamma', gamma], ['mean', mean], ['variance', variance]);
  const C = channels(BN_TRAIN_GRAD, x, ['gamma', gamma], ['mean', mean], ['variance', variance]);
  if (dy.shape.join() !== x.shape.join()) throw new Error(`${BN_TRAIN_GRAD} (wasm, mgpu): dy has shape [${dy.shape}], x [${x.shape}]`);
  const dx = makeOutput(backend, x.shape);
  const dgamma = makeOutput(backend, [C]);
  const dbeta = makeOutput(backend, [C]);
  const views = viewsOf(backend, { x, dy, gamma, mean, variance, dmean, dvariance, dx, dgamma, dbeta });
  const { backward, phases } = loops();
  const sum = batchNormSum();
  if (sum && gradientSynced(phases, sum, views, C, attrs.epsilon)) return [dx, dgamma, dbeta];
  const v = views();
  backward(v.x, v.dy, v.gamma, v.mean, v.variance, v.dmean, v.dvariance, v.dx, v.dgamma, v.dbeta, attrs.epsilon);
  return [dx, dgamma, dbeta];
}

/**
 * The gradient of MgpuBatchNormTrain, for tf.registerGradient: one MgpuBatchNormTrainGrad call
 * gives all three (the engine asks for each input's in its own tidy, so they are computed first,
 * outside those). Registering it touches no other kernel, on any backend: the name is ours.
 */
export function batchNormTrainGradConfig(tf: TF): GradConfig {
  return {
    kernelName: BN_TRAIN,
    inputsToSave: ['x', 'gamma'],
    outputsToSave: [false, true, true],
    gradFunc: (dys: Tensor | Tensor[], saved: Tensor[], attrs: NamedAttrMap) => {
      const [dy, dmean, dvariance] = dys as Tensor[];
      const [x, gamma, mean, variance] = saved as [Tensor, Tensor, Tensor, Tensor];
      const [dx, dgamma, dbeta] = tf
        .engine()
        .runKernel<Tensor[]>(BN_TRAIN_GRAD, { x, dy: dy!, gamma, mean, variance, dmean: dmean!, dvariance: dvariance! }, attrs);
      return { x: () => dx!, gamma: () => dgamma!, beta: () => dbeta! };
    },
  };
}
