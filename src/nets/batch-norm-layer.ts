// The networks' BatchNormalization: tfjs-layers' own class, subclassed, whose training-mode
// forward runs one fused kernel (MgpuBatchNormTrain: mean, variance and y in three passes over x)
// and whose gradient is one more (MgpuBatchNormTrainGrad: dx, dgamma, dbeta in two), where the
// backend has them: the layer asks tfjs's kernel registry for the names of batch-norm-kernels.ts,
// which the worker fills on wasm (src/worker/wasm-kernels/batch-norm-train.ts, registered by
// registerWasmGradKernels); the layer imports no backend's kernels. tfjs's layer computes tf.moments then tf.batchNorm op by op, and its
// gradient is autodiff over a dozen full passes: 35-40% of a resnet18-cifar step on wasm.
//
// Why a subclass, and why this one:
// - Saved models must load in plain tfjs and fine-tune there. The subclass keeps className
//   'BatchNormalization' and tfjs's config (it adds no field, and is never registered with
//   tf.serialization), so model.json says BatchNormalization and tf.loadLayersModel builds tfjs's
//   own class from it, with the same weights in the same order.
// - The gradient must change on wasm alone. tfjs's op gradients are registered by kernel name for
//   every backend at once (replacing Mean's or FusedBatchNorm's would change webgpu and tfjs-node
//   too), and FusedBatchNorm's forward does not see the moments being computed. Two kernels under
//   names of our own, with their gradient registered under the forward's name, change nothing
//   else: on a backend without them (webgpu, tfjs-node, cpu) `call` is tfjs's, unchanged.
// - A tf.customGrad would work too, but its forward shows in tf.profile as a scope around the
//   kernels it runs (counted twice in `benchmark --profile`), and registered kernels are found
//   per backend by the same registry as every other kernel.
// Everything but the arithmetic is tfjs's: inference (training false) is super.call, and the
// moving mean and variance are updated with tfjs-layers' formula, ops and rounding
// (moving -= (moving - batch) · (1 - momentum)), from the biased variance, as tfjs-layers does.
// The following ReLU is not fused: it is a layer of its own in model.json.
import type { KernelConfig, Tensor } from '@tensorflow/tfjs';
import { BN_TRAIN } from './batch-norm-kernels.ts';
import type { TF } from './net-options.ts';

type BnLayer = ReturnType<TF['layers']['batchNormalization']>;
type BnArgs = Parameters<TF['layers']['batchNormalization']>[0];
type Kwargs = Parameters<BnLayer['call']>[1];

/** The fields of tfjs's layer the fused path reads (private in its declarations). */
interface BnState {
  axis: number;
  momentum: number;
  epsilon: number;
  center: boolean;
  scale: boolean;
  gamma: { read(): Tensor };
  beta: { read(): Tensor };
  movingMean: { read(): Tensor; write(t: Tensor): void };
  movingVariance: { read(): Tensor; write(t: Tensor): void };
}

const classes = new WeakMap<TF, new (args?: BnArgs) => BnLayer>();

/** The subclass, made from this tf's own BatchNormalization (a worker's tf may be another instance than the coordinator's). */
export function batchNormClass(tf: TF): new (args?: BnArgs) => BnLayer {
  const known = classes.get(tf);
  if (known) return known;
  const Base = (Object.getPrototypeOf(tf.layers.batchNormalization({})) as { constructor: new (args?: BnArgs) => BnLayer }).constructor;
  class MgpuBatchNormalization extends Base {
    /** tfjs's name: what model.json records, and what plain tfjs loads as its own class. */
    static className = 'BatchNormalization';

    call(inputs: Tensor | Tensor[], kwargs: Kwargs): Tensor | Tensor[] {
      const x = Array.isArray(inputs) ? inputs[0] : inputs;
      if (!kwargs['training'] || !x || !fusable(tf, this as unknown as BnState, x)) return super.call(inputs, kwargs);
      const s = this as unknown as BnState;
      return tf.tidy(() => {
        const [y, mean, variance] = tf.engine().runKernel<Tensor[]>(BN_TRAIN, { x, gamma: s.gamma.read(), beta: s.beta.read() }, { epsilon: s.epsilon });
        movingAverage(tf, s.movingMean, mean!, s.momentum);
        movingAverage(tf, s.movingVariance, variance!, s.momentum);
        return y!;
      });
    }
  }
  classes.set(tf, MgpuBatchNormalization);
  return MgpuBatchNormalization;
}

/** Whether the fused kernels compute this call: channel axis last, gamma and beta, float32, the kernel on this backend. */
function fusable(tf: TF, s: BnState, x: Tensor): boolean {
  const last = s.axis === -1 || s.axis === x.rank - 1;
  return last && s.center && s.scale && x.dtype === 'float32' && x.size > 0 && registered(tf, BN_TRAIN);
}

/** Whether a kernel of that name is registered for the backend in use (tfjs's getKernel is typed as never missing). */
const registered = (tf: TF, name: string): boolean => (tf.getKernel(name, tf.getBackend()) as KernelConfig | undefined) !== undefined;

/** tfjs-layers' doMovingAverage, op for op. */
function movingAverage(tf: TF, variable: BnState['movingMean'], value: Tensor, momentum: number): void {
  tf.tidy(() => {
    const decay = 1 - momentum;
    const orig = variable.read();
    variable.write(tf.sub(orig, tf.mul(tf.sub(orig, value), decay)));
  });
}
