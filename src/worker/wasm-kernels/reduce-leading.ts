// Sum and Mean over a tensor's leading axes, for the wasm backend: the reductions of batch
// normalisation in NHWC (over batch, height and width, per channel) and of a bias gradient. wasm's
// own kernels reduce only innermost axes, so they transpose the whole tensor first (a full copy
// in a slow general walk) and then sum; here x is read once as a [rows, C] matrix and its columns
// are summed, in float64, into the output. Other axes, and dtypes other than float32, go to
// wasm's own kernel.
import type { KernelFunc, MeanAttrs, SumAttrs, TensorInfo } from '@tensorflow/tfjs';
import { f32, type KernelArgs, makeOutput, type TF } from './util.ts';

/** Column sums (or means) of x as [rows, C], where the reduced axes are exactly x's first ones. */
export function reduceLeading(tf: TF, args: KernelArgs<SumAttrs | MeanAttrs>, wasm: KernelFunc, mean: boolean): TensorInfo {
  const { inputs, backend, attrs } = args;
  const x = inputs.x!;
  const shape = x.shape;
  const axes = tf.util.parseAxisParam(attrs.axis, shape).sort((a, b) => a - b);
  const lead = axes.length;
  if (x.dtype !== 'float32' || lead === 0 || lead === shape.length || axes.some((a, i) => a !== i)) return wasm(args as never) as TensorInfo;
  const rows = shape.slice(0, lead).reduce((a, b) => a * b, 1);
  const cols = shape.slice(lead).reduce((a, b) => a * b, 1);
  const outShape = attrs.keepDims ? shape.map((d, i) => (i < lead ? 1 : d)) : shape.slice(lead);
  const out = makeOutput(backend, outShape);
  // Views only now: the allocation may have grown (and detached) the heap.
  const src = f32(backend, x);
  const acc = new Float64Array(cols);
  for (let r = 0, at = 0; r < rows; r++) for (let c = 0; c < cols; c++, at++) acc[c]! += src[at]!;
  const dst = f32(backend, out);
  // The mean of no rows is 0, as the cpu backend gives it.
  for (let c = 0; c < cols; c++) dst[c] = mean && rows > 0 ? acc[c]! / rows : acc[c]!;
  return out;
}
