// Shared plumbing for the gradient kernels this directory adds to tfjs-backend-wasm.
//
// A kernel here gets `tf` at registration time (never imports @tensorflow/tfjs itself, so this
// module costs nothing on tfjs-node), reads its inputs as views of the wasm heap, and either
// fills a heap output in plain JS or hands heap tensors to the wasm backend's own kernels
// (BatchMatMul, Transpose, Reshape) through their kernelFunc, as the wasm backend's kernels do
// among themselves.
//
// The wasm heap may grow whenever a tensor is allocated, and growing it detaches every
// Float32Array view of the old buffer: take views only after the last allocation.
import type { DataType, KernelConfig, NamedAttrMap, NamedTensorInfoMap, TensorInfo, backend_util } from '@tensorflow/tfjs';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';

export type TF = typeof import('@tensorflow/tfjs');
export type Conv2DInfo = backend_util.Conv2DInfo;

export const BACKEND = 'wasm';

/** What each kernel receives. */
export interface KernelArgs<A> {
  inputs: NamedTensorInfoMap;
  backend: BackendWasm;
  attrs: A;
}

/** tf.getKernel as it behaves: undefined when no kernel of that name is registered (its declaration says it always returns one). */
export function findKernel(tf: TF, name: string, backend: string): KernelConfig | undefined {
  return tf.getKernel(name, backend);
}

/** Runs another kernel of the wasm backend on heap tensors (no engine bookkeeping, no tape). */
export function runKernel(tf: TF, backend: BackendWasm, name: string, inputs: NamedTensorInfoMap, attrs: NamedAttrMap = {}): TensorInfo {
  const k = findKernel(tf, name, BACKEND);
  if (!k) throw new Error(`mgpu wasm kernels: the wasm backend has no '${name}' kernel to build on`);
  return k.kernelFunc({ inputs, backend, attrs }) as TensorInfo;
}

export function dispose(backend: BackendWasm, ...infos: TensorInfo[]): void {
  for (const t of infos) backend.disposeData(t.dataId);
}

/** A float32 view of a heap tensor; valid until the next allocation. */
export function f32(backend: BackendWasm, t: TensorInfo): Float32Array {
  return backend.typedArrayFromHeap(t) as Float32Array;
}

export function requireFloat32(kernel: string, ...ts: [string, TensorInfo][]): void {
  for (const [name, t] of ts) {
    if (t.dtype !== 'float32') throw new Error(`${kernel} (wasm, mgpu): ${name} must be float32, got ${t.dtype}`);
  }
}

/** Refuses dilations other than 1: tfjs's own gradients of these ops refuse them too. */
export function requireUnitDilations(kernel: string, dilations: number | [number, number] | undefined | null): void {
  if (dilations == null) return;
  const [dh, dw] = typeof dilations === 'number' ? [dilations, dilations] : dilations;
  if (dh !== 1 || dw !== 1) {
    throw new Error(`${kernel} (wasm, mgpu): dilations [${dh}, ${dw}] are not supported, only 1`);
  }
}

/**
 * Checks dy against the geometry computed from the attrs and returns its spatial size. dy may be
 * larger than [outH, outW]: tfjs-core's Conv2D gradient drops dimRoundingMode, so with 'ceil' it
 * hands over one more row/column than the attrs give. Like the cpu backend, the kernels then use
 * the first outH x outW positions.
 */
export function dySpatial(kernel: string, dy: TensorInfo, info: Conv2DInfo): [number, number] {
  const [b, h, w, c] = dy.shape as [number, number, number, number];
  if (dy.shape.length !== 4 || b !== info.batchSize || c !== info.outChannels || h < info.outHeight || w < info.outWidth) {
    throw new Error(`${kernel} (wasm, mgpu): dy has shape [${dy.shape}], expected [${[info.batchSize, info.outHeight, info.outWidth, info.outChannels]}]`);
  }
  return [h, w];
}

export function makeOutput(backend: BackendWasm, shape: number[], dtype: DataType = 'float32', values?: Float32Array | Int32Array): TensorInfo {
  return backend.makeOutput(shape, dtype, undefined, values);
}

/**
 * Output positions n0..n1-1 of dy as rows of `out` (one row of outChannels per position). dy's
 * spatial size may exceed outH x outW (tfjs's Conv2D gradient drops dimRoundingMode); the
 * extra rows and columns are skipped.
 */
export function copyDyRows(dy: Float32Array, dyH: number, dyW: number, out: Float32Array, info: Conv2DInfo, n0: number, n1: number): void {
  const { outHeight: OH, outWidth: OW, outChannels: CO } = info;
  if (dyH === OH && dyW === OW) {
    out.set(dy.subarray(n0 * CO, n1 * CO));
    return;
  }
  for (let n = n0; n < n1; n++) {
    const b = Math.floor(n / (OH * OW));
    const rem = n - b * OH * OW;
    const oh = Math.floor(rem / OW);
    const ow = rem - oh * OW;
    const src = ((b * dyH + oh) * dyW + ow) * CO;
    out.set(dy.subarray(src, src + CO), (n - n0) * CO);
  }
}
