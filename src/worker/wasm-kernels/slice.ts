// Slice for the wasm backend by block copies. wasm's own Slice copies one innermost row at a time
// (a subarray and a set per row): the gradient of a ZeroPadding2D layer (a Slice of dy, every
// spatial position a row of C channels) took 46 ms a call on mobilenet-v2 at 96x96, a fifth of
// its step. Here the trailing axes the slice spans whole are merged with the first one it cuts,
// so each copy is as long as the memory allows: for that padding gradient, a row of W x C floats.
// Strings go to wasm's own kernel.
import type { KernelFunc, SliceAttrs, TensorInfo } from '@tensorflow/tfjs';
import { type KernelArgs, makeOutput, type TF } from './util.ts';

type Elements = Float32Array | Int32Array | Uint8Array;

export function slice(tf: TF, args: KernelArgs<SliceAttrs>, wasm: KernelFunc): TensorInfo {
  const { inputs, backend, attrs } = args;
  const x = inputs.x!;
  if (x.dtype === 'string') return wasm(args as never) as TensorInfo;
  // begin and size in full: -1 sizes and missing axes resolved, as tfjs-core's kernels take them.
  const params = tf.slice_util.parseSliceParams(x, attrs.begin, attrs.size);
  const begin = params[0]!;
  const size = params[1]!;
  const out = makeOutput(backend, size, x.dtype);
  if (size.some((d) => d === 0)) return out;
  // Views only now: the allocation may have grown (and detached) the heap.
  const src: Elements = backend.typedArrayFromHeap(x);
  const dst: Elements = backend.typedArrayFromHeap(out);
  const shape = x.shape;
  // The copy: the axes from `cut` on, the first of them cut by the slice, the rest whole.
  let cut = shape.length - 1;
  while (cut > 0 && size[cut] === shape[cut]) cut--;
  const inner = shape.slice(cut + 1).reduce((a, b) => a * b, 1);
  const run = size[cut]! * inner;
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  const count = size.slice(0, cut).reduce((a, b) => a * b, 1);
  for (let i = 0; i < count; i++) {
    // i's index over the axes before `cut`, in the slice, to the offset in x.
    let rest = i;
    let from = begin[cut]! * strides[cut]!;
    for (let d = cut - 1; d >= 0; d--) {
      from += (begin[d]! + (rest % size[d]!)) * strides[d]!;
      rest = Math.floor(rest / size[d]!);
    }
    dst.set(src.subarray(from, from + run), i * run);
  }
  return out;
}
