// Every ReLU6 activation a worker trains (`activation: 'relu6'`: MobileNet's, in the networks by
// name and in a user's layers) runs as one kernel each way where the backend has them. tfjs-layers
// computes it as minimum(6, relu(x)), and its gradient by autodiff: Greater(6, relu(x)), a Cast, a
// Multiply and the ReLU's gradient. On wasm the scalar's broadcast in Minimum and Greater alone
// took 42% of a mobilenet-v2 step (96x96, batch 32: 180 ms each over 35 activations). The fused
// forward (MgpuRelu6: y = min(6, max(0, x)), one pass) and gradient (MgpuRelu6Grad: dx = dy ·
// [6 > relu(x)] · step(x), one pass) compute what tfjs's ops do, bit for bit: dy where 0 < x < 6,
// and at x = 6 exactly 0, as Greater(6, 6) makes it (tf.relu6's own gradient would pass it); a NaN
// in x stays NaN in y and makes dx NaN, as relu's Step does; a masked infinite dy gives NaN, as
// tfjs's multiplications by 0 do.
//
// How: fuse-layer.ts wraps the `apply` of tfjs-layers' own Relu6 activation class; the wrapped
// apply runs the kernels where they are registered for the backend in use (the worker registers
// them on wasm: wasm-kernels/relu-max.ts) and tfjs's apply elsewhere. A saved model still says
// `relu6`. (A ReLU layer with maxValue 6 is another class, with another gradient at 6:
// fused-relu-layer.ts.)
import type { GradConfig, Tensor } from '@tensorflow/tfjs';
import type { TF } from '../nets/net-options.ts';
import { registered, unwrapMethod, wrapMethod } from './fuse-layer.ts';

/** MgpuRelu6: input x (float32); output min(6, max(0, x)). */
export const RELU6 = 'MgpuRelu6';
/** MgpuRelu6Grad: inputs x, dy; output dy · [6 > relu(x)] · step(x). Registered as MgpuRelu6's gradient. */
export const RELU6_GRAD = 'MgpuRelu6Grad';

interface Relu6Activation {
  apply(x: Tensor): Tensor;
}

/** tfjs-layers' Relu6 activation prototype of this tf. */
function prototypeOf(tf: TF): object {
  const layer = tf.layers.activation({ activation: 'relu6' }) as unknown as { activation: Relu6Activation };
  return Object.getPrototypeOf(layer.activation) as object;
}

/** Wraps tfjs's Relu6 activation `apply` for every layer of this tf, once; later calls do nothing. */
export function fuseRelu6(tf: TF): void {
  if (!(tf.getGradient(RELU6) as GradConfig | undefined)) tf.registerGradient(relu6GradConfig(tf));
  wrapMethod<Relu6Activation['apply']>(
    prototypeOf(tf),
    'apply',
    'Relu6 activation',
    (tfjsApply) =>
      function fusedApply(this: Relu6Activation, x: Tensor): Tensor {
        if (x.dtype !== 'float32' || !registered(tf, RELU6)) return tfjsApply.call(this, x);
        return tf.engine().runKernel<Tensor>(RELU6, { x });
      },
  );
}

/** Puts tfjs's own apply back (tests compare the two in one process). */
export const unfuseRelu6 = (tf: TF): void => unwrapMethod(prototypeOf(tf), 'apply');

function relu6GradConfig(tf: TF): GradConfig {
  return {
    kernelName: RELU6,
    inputsToSave: ['x'],
    gradFunc: (dy: Tensor | Tensor[], saved: Tensor[]) => {
      const [x] = saved as [Tensor];
      return { x: () => tf.engine().runKernel<Tensor>(RELU6_GRAD, { x, dy: dy as Tensor }) };
    },
  };
}
