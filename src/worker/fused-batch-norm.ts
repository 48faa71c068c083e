// Every BatchNormalization a worker trains runs on fused kernels where its backend has them: the
// networks by name, a model module's `tf.layers.batchNormalization`, a model.json's (a converted
// Keras model's included), and one held inside a custom layer. tfjs's layer computes tf.moments
// then tf.batchNorm op by op, and its gradient is autodiff over a dozen full passes: 35-40% of a
// resnet18-cifar step on wasm. The fused forward (MgpuBatchNormTrain: mean, variance and y in
// three passes over x) and its gradient (MgpuBatchNormTrainGrad: dx, dgamma, dbeta in two) do the
// same arithmetic in float64 sums.
//
// How: fuse-layer.ts wraps the `call` of tfjs-layers' own BatchNormalization class (the prototype
// every instance of this tf shares, however it was built or loaded), once per tf. The wrapped
// call looks the kernels up in tfjs's kernel registry for the backend in use (the worker
// registers them on wasm: src/worker/wasm-kernels/batch-norm-train.ts); where they are not
// registered (webgpu, tfjs-node, cpu) or the call is not one they compute, it is tfjs's call,
// unchanged. A saved model says BatchNormalization with tfjs's config, and plain tfjs loads it as
// its own class.
//
// Why not a subclass (as the networks by name once used) or a tf.customGrad:
// - a subclass reaches only the layers this project builds; a user's module and a model.json
//   build tfjs's class;
// - tfjs's op gradients are registered by kernel name for every backend at once (replacing Mean's
//   or FusedBatchNorm's would change webgpu and tfjs-node too), and FusedBatchNorm's forward does
//   not see the moments being computed; two kernels under names of our own, with their gradient
//   registered under the forward's name, change nothing else;
// - a customGrad's forward shows in tf.profile as a scope around the kernels it runs (counted
//   twice in `benchmark --profile`).
//
// What the fused call computes is tfjs's, within float error: in training the batch mean and the
// biased variance, y = (x - mean) · gamma / sqrt(variance + epsilon) + beta, and the moving mean
// and variance updated with tfjs-layers' formula, ops and rounding
// (moving -= (moving - batch) · (1 - momentum)). Inference (training false) is tfjs's call.
// A layer without beta (center false) or gamma (scale false) takes zeros or ones in their place
// (tfjs-layers 4.22's own layer fails in training there, reading the missing weight). The
// channel axis must be last (NHWC, or the features of a Dense's output), written -1, as the
// rank's last, or as a list of that one axis (what a converted Keras model.json says); axis 1
// of NCHW is tfjs's call.
//
// With training.syncBatchNorm a step installs a sum over the workers (batch-norm-sum.ts): the
// training call then gives the statistics of every worker's rows, on the fused kernels or, where
// the backend has none, on tf ops (sync-batch-norm-ops.ts), and a channels-first layer is refused.
import type { Tensor } from '@tensorflow/tfjs';
import type { TF } from '../nets/net-options.ts';
import { MgpuError } from '../shared/errors.ts';
import { batchNormSum, type BatchNormSum } from './batch-norm-sum.ts';
import { isWrapped, registered, unwrapMethod, wrapMethod } from './fuse-layer.ts';
import { syncBatchNormOps } from './sync-batch-norm-ops.ts';

/**
 * MgpuBatchNormTrain: inputs x (channel last, float32), gamma, beta; attrs { epsilon };
 * outputs y, the batch mean and the biased batch variance, per channel.
 */
export const BN_TRAIN = 'MgpuBatchNormTrain';
/**
 * MgpuBatchNormTrainGrad: inputs x, dy, gamma, mean, variance, dmean, dvariance; attrs
 * { epsilon }; outputs dx, dgamma, dbeta. Registered as MgpuBatchNormTrain's gradient.
 */
export const BN_TRAIN_GRAD = 'MgpuBatchNormTrainGrad';

type BnLayer = ReturnType<TF['layers']['batchNormalization']>;
type Call = BnLayer['call'];
type Kwargs = Parameters<Call>[1];

/** The fields of tfjs's layer the fused path reads (private in its declarations). */
interface BnState {
  axis: number | number[]; // a Keras model.json says [3]: tf.keras writes the built layer's axes as a list
  momentum: number;
  epsilon: number;
  gamma: { read(): Tensor } | null;
  beta: { read(): Tensor } | null;
  movingMean: { read(): Tensor; write(t: Tensor): void };
  movingVariance: { read(): Tensor; write(t: Tensor): void };
}

/** tfjs-layers' BatchNormalization prototype of this tf (a worker's tf may be another instance than the coordinator's). */
const prototypeOf = (tf: TF): BnLayer => Object.getPrototypeOf(tf.layers.batchNormalization({})) as BnLayer;

/** Wraps tfjs's BatchNormalization `call` for every layer of this tf, once; later calls do nothing. */
export function fuseBatchNormalization(tf: TF): void {
  wrapMethod<Call>(
    prototypeOf(tf),
    'call',
    'BatchNormalization',
    (tfjsCall) =>
      function fusedCall(this: BnLayer, inputs: Tensor | Tensor[], kwargs: Kwargs): Tensor | Tensor[] {
        const x = Array.isArray(inputs) ? inputs[0] : inputs;
        const s = this as unknown as BnState;
        if (!kwargs['training'] || !x) return tfjsCall.call(this, inputs, kwargs);
        const sum = batchNormSum();
        if (sum) return syncedCall(tf, s, x, sum, this.name);
        if (!fusable(tf, s, x)) return tfjsCall.call(this, inputs, kwargs);
        return trainingCall(tf, s, x);
      },
  );
}

/** Whether this tf's BatchNormalization call is wrapped. */
export const isBatchNormFused = (tf: TF): boolean => isWrapped(prototypeOf(tf), 'call');

/** Puts tfjs's own call back (tests compare the two in one process). */
export const unfuseBatchNormalization = (tf: TF): void => unwrapMethod(prototypeOf(tf), 'call');

/** The training-mode forward on the fused kernel, and the moving statistics moved. */
function trainingCall(tf: TF, s: BnState, x: Tensor): Tensor {
  return tf.tidy(() => {
    const { gamma, beta } = affine(tf, s, x);
    const [y, mean, variance] = tf.engine().runKernel<Tensor[]>(BN_TRAIN, { x, gamma, beta }, { epsilon: s.epsilon });
    movingAverage(tf, s.movingMean, mean!, s.momentum);
    movingAverage(tf, s.movingVariance, variance!, s.momentum);
    return y!;
  });
}

/** tfjs-layers builds no gamma when scale is false, no beta when center is false: ones and zeros stand in. */
function affine(tf: TF, s: BnState, x: Tensor): { gamma: Tensor; beta: Tensor } {
  const channels = x.shape[x.rank - 1]!;
  return { gamma: s.gamma ? s.gamma.read() : tf.ones([channels]), beta: s.beta ? s.beta.read() : tf.zeros([channels]) };
}

/**
 * training.syncBatchNorm in a step: statistics over every worker's rows, on the fused kernels
 * (which sum through batchNormSum themselves) or, where the backend has none, on tf ops
 * (sync-batch-norm-ops.ts). A layer whose channel axis is not last, or that is not float32, is
 * refused rather than silently normalised with this worker's rows alone.
 */
function syncedCall(tf: TF, s: BnState, x: Tensor, sum: BatchNormSum, layer: string): Tensor {
  if (!channelLast(s, x) || x.dtype !== 'float32') {
    throw new MgpuError(
      'E_MODEL',
      `training.syncBatchNorm: BatchNormalization layer '${layer}' normalises axis ${JSON.stringify(s.axis)} of a ${x.dtype} input of rank ${x.rank}; synchronised statistics need float32 with the channel axis last`,
      {
        hint: 'build the layer with axis -1 on channels-last (NHWC) data, or set training.syncBatchNorm: false',
      },
    );
  }
  if (registered(tf, BN_TRAIN)) return trainingCall(tf, s, x);
  return tf.tidy(() => {
    const { gamma, beta } = affine(tf, s, x);
    const { y, mean, variance } = syncBatchNormOps(tf, x, gamma, beta, s.epsilon, sum);
    movingAverage(tf, s.movingMean, mean, s.momentum);
    movingAverage(tf, s.movingVariance, variance, s.momentum);
    return y;
  });
}

function channelLast(s: BnState, x: Tensor): boolean {
  const axis = Array.isArray(s.axis) && s.axis.length === 1 ? s.axis[0] : s.axis;
  return axis === -1 || axis === x.rank - 1;
}

/** Whether the fused kernels compute this call: channel axis last, float32, at least one row, the kernel on this backend. */
function fusable(tf: TF, s: BnState, x: Tensor): boolean {
  return channelLast(s, x) && x.dtype === 'float32' && x.size > 0 && registered(tf, BN_TRAIN);
}

/** tfjs-layers' doMovingAverage, op for op. */
function movingAverage(tf: TF, variable: BnState['movingMean'], value: Tensor, momentum: number): void {
  tf.tidy(() => {
    const decay = 1 - momentum;
    const orig = variable.read();
    variable.write(tf.sub(orig, tf.mul(tf.sub(orig, value), decay)));
  });
}
