// UnsortedSegmentSum for the wasm backend (the gradient of Gather, so of Embedding layers):
//   out[s, ...] = Σ_{i : ids[i] = s} x[i, ...], ids outside [0, numSegments) dropped (as in TF).
// One pass over x in plain JS; float32 sums are kept in float64 and rounded once.
import type { TensorInfo, UnsortedSegmentSumAttrs } from '@tensorflow/tfjs';
import { type KernelArgs, makeOutput } from './util.ts';

const KERNEL = 'UnsortedSegmentSum';

export function unsortedSegmentSum(args: KernelArgs<UnsortedSegmentSumAttrs>): TensorInfo {
  const { inputs, backend, attrs } = args;
  const x = inputs.x!;
  const segmentIds = inputs.segmentIds!;
  const { numSegments } = attrs;
  if (x.dtype !== 'float32' && x.dtype !== 'int32') throw new Error(`${KERNEL} (wasm, mgpu): x must be float32 or int32, got ${x.dtype}`);
  if (segmentIds.dtype !== 'int32') throw new Error(`${KERNEL} (wasm, mgpu): segmentIds must be int32, got ${segmentIds.dtype}`);
  const r = segmentIds.shape.length;
  if (x.shape.slice(0, r).join() !== segmentIds.shape.join()) {
    throw new Error(`${KERNEL} (wasm, mgpu): segmentIds shape [${segmentIds.shape}] is not a prefix of x shape [${x.shape}]`);
  }
  const inner = x.shape.slice(r).reduce((a, b) => a * b, 1);
  const ids = backend.typedArrayFromHeap(segmentIds) as Int32Array;
  const xv = backend.typedArrayFromHeap(x) as Float32Array | Int32Array;
  const acc = new Float64Array(numSegments * inner);
  for (let i = 0; i < ids.length; i++) {
    const s = ids[i]!;
    if (s < 0 || s >= numSegments) continue;
    const o = s * inner;
    const xo = i * inner;
    for (let j = 0; j < inner; j++) acc[o + j]! += xv[xo + j]!;
  }
  const values = x.dtype === 'float32' ? Float32Array.from(acc) : Int32Array.from(acc);
  return makeOutput(backend, [numSegments, ...x.shape.slice(r)], x.dtype, values);
}
