// Every ReLU layer with a ceiling a worker trains (`tf.layers.reLU({ maxValue: 6 })`, as Keras's
// MobileNetV2 writes `ReLU(6.)`, so a converted Keras model.json has 35 of them) runs as one kernel
// each way where the backend has them. tfjs-layers computes it as clipByValue(relu(x), 0, max),
// and its gradient by autodiff: GreaterEqual, LessEqual, LogicalAnd, a Select against zeros, then
// relu's Step and a Multiply; on wasm those compare with a broadcast scalar, 28 ms a call on a
// 32x24x24x96 activation against 1 ms fused. The fused forward (MgpuReluMax: y = min(max, max(0,
// x))) and gradient (MgpuReluMaxGrad: dx = (0 <= relu(x) <= max ? dy : 0) · step(x)) compute what
// tfjs's ops do, bit for bit: dy where 0 < x <= max (at x = max exactly dy, unlike the ReLU6
// activation's 0, since ClipByValue's gradient is inclusive), a +0 where the Select masks (an
// infinite dy above the ceiling gives 0, not NaN), NaN where x is NaN. The ceiling is compared
// in float32, as tfjs's scalar tensors hold it.
//
// How: fuse-layer.ts wraps the `call` of tfjs-layers' own ReLU class; the wrapped call runs the
// kernels where they are registered for the backend in use (the worker registers them on wasm:
// wasm-kernels/relu-max.ts) and tfjs's call elsewhere, and for a ReLU without a ceiling (plain
// relu, already one kernel each way) or with one tfjs refuses (below 0, NaN: tfjs's error stays).
import type { GradConfig, Tensor } from '@tensorflow/tfjs';
import type { TF } from '../nets/net-options.ts';
import { isWrapped, registered, unwrapMethod, wrapMethod } from './fuse-layer.ts';

/** MgpuReluMax: input x (float32), attr maxValue (>= 0); output min(maxValue, max(0, x)). */
export const RELU_MAX = 'MgpuReluMax';
/** MgpuReluMaxGrad: inputs x, dy, attr maxValue; output (0 <= relu(x) <= maxValue ? dy : 0) · step(x). Registered as MgpuReluMax's gradient. */
export const RELU_MAX_GRAD = 'MgpuReluMaxGrad';

type ReluLayer = ReturnType<TF['layers']['reLU']>;
type Call = ReluLayer['call'];

/** tfjs-layers' ReLU prototype of this tf. */
const prototypeOf = (tf: TF): object => Object.getPrototypeOf(tf.layers.reLU({})) as object;

/** Wraps tfjs's ReLU layer `call` for every layer of this tf, once; later calls do nothing. */
export function fuseReluLayer(tf: TF): void {
  if (!(tf.getGradient(RELU_MAX) as GradConfig | undefined)) tf.registerGradient(reluMaxGradConfig(tf));
  wrapMethod<Call>(
    prototypeOf(tf),
    'call',
    'ReLU',
    (tfjsCall) =>
      function fusedCall(this: ReluLayer, inputs, kwargs) {
        const x = Array.isArray(inputs) && inputs.length === 1 ? inputs[0]! : inputs;
        const maxValue = (this as unknown as { maxValue?: number | null }).maxValue;
        if (Array.isArray(x) || x.dtype !== 'float32' || typeof maxValue !== 'number' || !(maxValue >= 0) || !registered(tf, RELU_MAX))
          return tfjsCall.call(this, inputs, kwargs);
        return tf.engine().runKernel<Tensor>(RELU_MAX, { x }, { maxValue });
      },
  );
}

/** Whether this tf's ReLU layer call is wrapped. */
export const isReluLayerFused = (tf: TF): boolean => isWrapped(prototypeOf(tf), 'call');

/** Puts tfjs's own call back (tests compare the two in one process). */
export const unfuseReluLayer = (tf: TF): void => unwrapMethod(prototypeOf(tf), 'call');

function reluMaxGradConfig(tf: TF): GradConfig {
  return {
    kernelName: RELU_MAX,
    inputsToSave: ['x'],
    gradFunc: (dy: Tensor | Tensor[], saved: Tensor[], attrs) => {
      const [x] = saved as [Tensor];
      const { maxValue } = attrs as unknown as { maxValue: number };
      return { x: () => tf.engine().runKernel<Tensor>(RELU_MAX_GRAD, { x, dy: dy as Tensor }, { maxValue }) };
    },
  };
}
