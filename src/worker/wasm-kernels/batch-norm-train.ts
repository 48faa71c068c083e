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
// them, as it does for the convolutions).
import type { GradConfig, NamedAttrMap, Tensor, TensorInfo } from '@tensorflow/tfjs';
import { nativeConv, type BatchNormTrainFn, type BatchNormTrainGradFn } from './native-conv.ts';
import { f32, makeOutput, requireFloat32, type KernelArgs, type TF } from './util.ts';
import { BN_TRAIN, BN_TRAIN_GRAD } from '../fused-batch-norm.ts';

export interface BatchNormAttrs {
  epsilon: number;
}

/** mean, biased variance, y = (x - mean) · gamma / sqrt(variance + eps) + beta: the loops of batch-norm.c. */
export const batchNormTrainJs: BatchNormTrainFn = (x, gamma, beta, y, mean, variance, epsilon) => {
  const C = gamma.length;
  const R = x.length / C;
  if (R === 0) {
    mean.fill(NaN);
    variance.fill(NaN);
    return;
  }
  const s = new Float64Array(C);
  for (let r = 0, i = 0; r < R; r++) for (let c = 0; c < C; c++, i++) s[c]! += x[i]!;
  const mu = new Float64Array(C);
  for (let c = 0; c < C; c++) {
    mu[c] = s[c]! / R;
    s[c] = 0;
  }
  for (let r = 0, i = 0; r < R; r++) {
    for (let c = 0; c < C; c++, i++) {
      const d = x[i]! - mu[c]!;
      s[c]! += d * d;
    }
  }
  const scale = new Float32Array(C);
  for (let c = 0; c < C; c++) {
    mean[c] = mu[c]!;
    variance[c] = s[c]! / R;
    scale[c] = gamma[c]! / Math.sqrt(variance[c]! + epsilon);
  }
  // Float32 arithmetic, as the C loop does it.
  const f = Math.fround;
  for (let r = 0, i = 0; r < R; r++) for (let c = 0; c < C; c++, i++) y[i] = f(f(f(x[i]! - mean[c]!) * scale[c]!) + beta[c]!);
};

/** dx, dgamma, dbeta of batchNormTrainJs (dmean, dvariance: what reaches the mean and variance outputs; null = 0). */
export const batchNormTrainGradJs: BatchNormTrainGradFn = (x, dy, gamma, mean, variance, dmean, dvariance, dx, dgamma, dbeta, epsilon) => {
  const C = gamma.length;
  const R = x.length / C;
  const sdy = new Float64Array(C);
  const sdxc = new Float64Array(C);
  for (let r = 0, i = 0; r < R; r++) {
    for (let c = 0; c < C; c++, i++) {
      const d = dy[i]!;
      sdy[c]! += d;
      sdxc[c]! += d * (x[i]! - mean[c]!);
    }
  }
  // dx = A · (dy - M) + B · (x - mean) + E, in float32 as the C loop computes it.
  const A = new Float32Array(C);
  const M = new Float32Array(C);
  const B = new Float32Array(C);
  const E = new Float32Array(C);
  for (let c = 0; c < C; c++) {
    const inv = 1 / Math.sqrt(variance[c]! + epsilon);
    const g = gamma[c]!;
    dbeta[c] = sdy[c]!;
    dgamma[c] = sdxc[c]! * inv;
    A[c] = g * inv;
    M[c] = sdy[c]! / R;
    B[c] = (-g * inv * inv * inv * sdxc[c]!) / R + (dvariance ? (2 * dvariance[c]!) / R : 0);
    E[c] = dmean ? dmean[c]! / R : 0;
  }
  const f = Math.fround;
  for (let r = 0, i = 0; r < R; r++) {
    for (let c = 0; c < C; c++, i++) dx[i] = f(f(f(A[c]! * f(dy[i]! - M[c]!)) + f(B[c]! * f(x[i]! - mean[c]!))) + E[c]!);
  }
};

/** What computes the loops: the addon's functions when it is built, else the JavaScript ones. */
function loops(): { forward: BatchNormTrainFn; backward: BatchNormTrainGradFn } {
  const addon = nativeConv().addon;
  if (!addon) return { forward: batchNormTrainJs, backward: batchNormTrainGradJs };
  return { forward: (...a) => addon.batchNormTrain(...a), backward: (...a) => addon.batchNormTrainGrad(...a) };
}

function channels(kernel: string, x: TensorInfo, ...perChannel: [string, TensorInfo][]): number {
  const C = x.shape[x.shape.length - 1] ?? 0;
  if (x.shape.length < 1 || C === 0) throw new Error(`${kernel} (wasm, mgpu): x has shape [${x.shape}], needs a channel axis last`);
  for (const [name, t] of perChannel) {
    if (t.shape.length !== 1 || t.shape[0] !== C) throw new Error(`${kernel} (wasm, mgpu): ${name} has shape [${t.shape}], expected [${C}]`);
  }
  return C;
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
  loops().forward(f32(backend, x), f32(backend, gamma), f32(backend, beta), f32(backend, y), f32(backend, mean), f32(backend, variance), attrs.epsilon);
  return [y, mean, variance];
}

export function batchNormTrainGrad(args: KernelArgs<BatchNormAttrs>): TensorInfo[] {
  const { backend, inputs, attrs } = args;
  const { x, dy, gamma, mean, variance, dmean, dvariance } = inputs as Record<string, TensorInfo>;
  requireFloat32(BN_TRAIN_GRAD, ['x', x!], ['dy', dy!], ['gamma', gamma!], ['mean', mean!], ['variance', variance!]);
  const C = channels(BN_TRAIN_GRAD, x!, ['gamma', gamma!], ['mean', mean!], ['variance', variance!]);
  if (dy!.shape.join() !== x!.shape.join()) throw new Error(`${BN_TRAIN_GRAD} (wasm, mgpu): dy has shape [${dy!.shape}], x [${x!.shape}]`);
  const dx = makeOutput(backend, x!.shape);
  const dgamma = makeOutput(backend, [C]);
  const dbeta = makeOutput(backend, [C]);
  const opt = (t: TensorInfo | undefined) => (t ? f32(backend, t) : null);
  loops().backward(
    f32(backend, x!),
    f32(backend, dy!),
    f32(backend, gamma!),
    f32(backend, mean!),
    f32(backend, variance!),
    opt(dmean),
    opt(dvariance),
    f32(backend, dx),
    f32(backend, dgamma),
    f32(backend, dbeta),
    attrs.epsilon,
  );
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
