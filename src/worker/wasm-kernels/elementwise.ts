// Comparisons, logical ops, Maximum / Minimum, Select and LeakyRelu for the wasm backend, in C with
// the convolution addon (native/src/elementwise.c). tfjs-backend-wasm 4.22 computes these outside
// XNNPACK, one element at a time through a broadcasting index: on a 32x24x24x96 activation (1.8 M
// floats) its Greater takes 8 ms, LogicalAnd 8, Maximum 20, LeakyRelu 9 and Select 4, where the
// addon's loops take well under 1 (a Multiply, on XNNPACK, 0.4). They are the gradients of
// tfjs-layers' LeakyReLU and PReLU (Greater, Select), of clipByValue and the hard sigmoid
// (GreaterEqual, LessEqual, LogicalAnd, Select), of Maximum and Minimum, and tf.where in a loss.
// (A loop in JavaScript was slower than wasm's: a comparison's branch mispredicts on real data.)
//
// Computed here: operands of one dtype (float32, int32, bool), each the whole output (shapes equal
// up to axes of 1) or a single element. Anything else (a row broadcast over a matrix, strings) is
// wasm's own kernel, and so is everything where the addon is missing (index.ts registers these
// only with it). The results are wasm's own, bit for bit, which are not always the cpu
// backend's: Maximum and Minimum are C++'s std::max and std::min (max(1, NaN) is 1, max(-0, 0)
// is -0), and LeakyRelu multiplies in float32 (alpha rounded to float32 first). One exception: wasm's Select of bool values mixes up its elements
// (where([1, 0, 1], [1, 1, 0], [1, 0, 1]) gives [1, 1, 0]); here it gives the cpu backend's.
import type { KernelFunc, TensorInfo } from '@tensorflow/tfjs';
import type { ConvAddon } from './native-conv.ts';
import { type KernelArgs, makeOutput } from './util.ts';

/** The binary kernels computed here and their op numbers in elementwise.c. */
const BINARY_OPS = {
  Greater: 0,
  GreaterEqual: 1,
  Less: 2,
  LessEqual: 3,
  Equal: 4,
  NotEqual: 5,
  LogicalAnd: 6,
  LogicalOr: 7,
  Maximum: 8,
  Minimum: 9,
} as const;
export type BinaryName = keyof typeof BINARY_OPS;
export const BINARY_NAMES = Object.keys(BINARY_OPS) as BinaryName[];
/** Every wasm kernel this module replaces, in the order index.ts registers them. */
export const ELEMENTWISE_KERNELS = [...BINARY_NAMES, 'Select', 'LeakyRelu'] as const;

const sizeOf = (shape: readonly number[]): number => shape.reduce((p, d) => p * d, 1);
const ELEMENT_DTYPES = new Set(['float32', 'int32', 'bool']);

/** The broadcast output shape where each operand is all of it or one element, else null. */
export function wholeOrOne(a: readonly number[], b: readonly number[]): number[] | null {
  const rank = Math.max(a.length, b.length);
  const pad = (s: readonly number[]) => [...Array<number>(rank - s.length).fill(1), ...s];
  const [pa, pb] = [pad(a), pad(b)];
  const out = pa.map((d, i) => (d === 1 ? pb[i]! : d));
  if (pb.some((d, i) => d !== out[i] && d !== 1)) return null;
  const n = sizeOf(out);
  const fits = (s: number[]) => sizeOf(s) === n || sizeOf(s) === 1;
  return n > 0 && fits(pa) && fits(pb) ? out : null;
}

export function binary(native: ConvAddon, name: BinaryName, args: KernelArgs<object>, wasm: KernelFunc): TensorInfo {
  const { inputs, backend } = args;
  const a = inputs.a!;
  const b = inputs.b!;
  const outShape = a.dtype === b.dtype && ELEMENT_DTYPES.has(a.dtype) ? wholeOrOne(a.shape, b.shape) : null;
  if (!outShape) return wasm(args as never) as TensorInfo;
  const op = BINARY_OPS[name];
  const out = makeOutput(backend, outShape, op < BINARY_OPS.Maximum ? 'bool' : a.dtype);
  // Views only now: the allocation may have grown (and detached) the heap.
  const view = (t: TensorInfo) => backend.typedArrayFromHeap(t);
  native.binary(op, view(a), view(b), view(out));
  return out;
}

/** Select (tf.where, which broadcasts the condition first): condition, t and e all of one size; else wasm's. */
export function select(native: ConvAddon, args: KernelArgs<object>, wasm: KernelFunc): TensorInfo {
  const { inputs, backend } = args;
  const c = inputs.condition!;
  const t = inputs.t!;
  const e = inputs.e!;
  const n = sizeOf(t.shape);
  if (t.dtype !== e.dtype || !ELEMENT_DTYPES.has(t.dtype) || c.dtype !== 'bool' || sizeOf(c.shape) !== n || sizeOf(e.shape) !== n || n === 0)
    return wasm(args as never) as TensorInfo;
  const out = makeOutput(backend, [...t.shape], t.dtype);
  const view = (x: TensorInfo) => backend.typedArrayFromHeap(x);
  native.select(view(c) as Uint8Array, view(t), view(e), view(out));
  return out;
}

/** LeakyRelu: x < 0 ? alpha · x : x in float32, as wasm's; float32 only, else wasm's. */
export function leakyRelu(native: ConvAddon, args: KernelArgs<{ alpha: number }>, wasm: KernelFunc): TensorInfo {
  const { inputs, backend, attrs } = args;
  const x = inputs.x!;
  if (x.dtype !== 'float32' || x.shape.includes(0)) return wasm(args) as TensorInfo;
  const out = makeOutput(backend, [...x.shape], 'float32');
  native.leakyRelu(backend.typedArrayFromHeap(x) as Float32Array, backend.typedArrayFromHeap(out) as Float32Array, attrs.alpha);
  return out;
}
