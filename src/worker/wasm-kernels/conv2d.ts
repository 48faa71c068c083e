// Conv2D and FusedConv2D for the wasm backend in C (native-conv.ts): the patches and their
// product with the filter, the bias and a relu or relu6 applied in the same pass. Registered only
// when the native convolution addon loads; whatever it does not compute (NCHW, dilations other
// than 1, the other fused activations, a bias or prelu weights of another shape) goes to wasm's
// own kernel (XNNPACK), which this one displaced.
import type { Conv2DAttrs, FusedConv2DAttrs, KernelFunc, TensorInfo } from '@tensorflow/tfjs';
import { convGeometry, nativeConv, nativeGeometry } from './native-conv.ts';
import { f32, type KernelArgs, makeOutput, type TF } from './util.ts';

/** The fused activations computed here, by the addon's code. */
const ACTIVATIONS: Record<string, number> = { linear: 0, relu: 1, relu6: 2 };

/** Conv2D, or FusedConv2D (with its bias and activation), on the addon; `wasm`: wasm's own kernel, for the rest. */
export function conv2D(tf: TF, args: KernelArgs<Conv2DAttrs & Partial<FusedConv2DAttrs>>, wasm: KernelFunc): TensorInfo {
  const { inputs, backend, attrs } = args;
  const { x, filter, bias, preluActivationWeights } = inputs;
  const native = nativeConv().addon;
  const act = ACTIVATIONS[attrs.activation ?? 'linear'];
  const outChannels = filter!.shape[3]!;
  const plain =
    native !== null &&
    act !== undefined &&
    preluActivationWeights == null &&
    (bias == null || (bias.shape.length === 1 && bias.shape[0] === outChannels)) &&
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- attrs arrive untyped from the engine (runKernel)
    (attrs.dataFormat ?? 'NHWC') === 'NHWC' &&
    [x!, filter!, ...(bias ? [bias] : [])].every((t) => t.dtype === 'float32') &&
    x!.shape.length === 4;
  const info = plain
    ? tf.backend_util.computeConv2DInfo(
        x!.shape as [number, number, number, number],
        filter!.shape as [number, number, number, number],
        attrs.strides,
        attrs.dilations,
        attrs.pad,
        attrs.dimRoundingMode,
        false,
        'channelsLast',
      )
    : null;
  if (!native || !info || !nativeGeometry(info)) return wasm(args as never) as TensorInfo;
  const out = makeOutput(backend, info.outShape);
  // Views only now: the allocation may have grown (and detached) the heap.
  native.conv2d(f32(backend, x!), f32(backend, filter!), bias ? f32(backend, bias) : null, f32(backend, out), convGeometry(info), act!);
  return out;
}
