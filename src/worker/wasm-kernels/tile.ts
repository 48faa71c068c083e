// Tile for the wasm backend by block copies. wasm's own Tile walks the output one element at a
// time through an index computation; the gradient of batch normalisation (tfjs-core's
// FusedBatchNorm gradient tiles a [C] vector over the whole activation) spent a sixth of a
// ResNet step in it. Here x is placed once, then each axis, innermost first, is repeated by
// copying the span already filled, doubling each time: a handful of memcpy's for that case.
// A tile whose copies would be shorter than MIN_RUN elements on average (many tiny runs), and
// strings, go to wasm's own kernel.
import type { KernelFunc, TensorInfo, TileAttrs } from '@tensorflow/tfjs';
import { type KernelArgs, makeOutput } from './util.ts';

/** The shortest average copy (in elements) worth doing here rather than in wasm's kernel. */
const MIN_RUN = 8;

type Elements = Float32Array | Int32Array | Uint8Array;

export function tile(args: KernelArgs<TileAttrs>, wasm: KernelFunc): TensorInfo {
  const { inputs, backend, attrs } = args;
  const x = inputs.x!;
  const shape = x.shape;
  const reps = attrs.reps;
  const outShape = shape.map((d, i) => d * reps[i]!);
  const size = outShape.reduce((a, b) => a * b, 1);
  if (x.dtype === 'string' || shape.length === 0 || size === 0 || copies(shape, reps) * MIN_RUN > size) return wasm(args as never) as TensorInfo;
  // inner[d]: the output's stride of axis d.
  const inner = outShape.map((_, d) => outShape.slice(d + 1).reduce((a, b) => a * b, 1));
  const out = makeOutput(backend, outShape, x.dtype);
  // Views only now: the allocation may have grown (and detached) the heap.
  const src: Elements = backend.typedArrayFromHeap(x);
  const dst: Elements = backend.typedArrayFromHeap(out);
  const rank = shape.length;
  const rowLen = shape[rank - 1]!;
  // x's rows, each at its place in the first tile.
  forEachFirstTile(shape, inner, rank - 1, (row, at) => dst.set(src.subarray(row * rowLen, (row + 1) * rowLen), at));
  for (let d = rank - 1; d >= 0; d--) {
    const r = reps[d]!;
    if (r === 1) continue;
    const block = shape[d]! * inner[d]!;
    forEachFirstTile(shape, inner, d, (_, base) => {
      for (let filled = 1; filled < r;) {
        const n = Math.min(filled, r - filled);
        dst.copyWithin(base + filled * block, base, base + n * block);
        filled += n;
      }
    });
  }
  return out;
}

/** Calls f(i, offset) for each index i over x's axes before `axes`, with its offset in the output's first tile. */
function forEachFirstTile(shape: readonly number[], inner: number[], axes: number, f: (i: number, offset: number) => void): void {
  const count = shape.slice(0, axes).reduce((a, b) => a * b, 1);
  for (let i = 0; i < count; i++) {
    let rest = i;
    let offset = 0;
    for (let d = axes - 1; d >= 0; d--) {
      offset += (rest % shape[d]!) * inner[d]!;
      rest = Math.floor(rest / shape[d]!);
    }
    f(i, offset);
  }
}

/** How many copies the block algorithm makes: x's rows, then per axis its first-tile positions times the doublings. */
function copies(shape: readonly number[], reps: readonly number[]): number {
  let n = shape.slice(0, -1).reduce((a, b) => a * b, 1);
  for (let d = 0; d < shape.length; d++) {
    if (reps[d]! > 1) n += shape.slice(0, d).reduce((a, b) => a * b, 1) * Math.ceil(Math.log2(reps[d]!));
  }
  return n;
}
