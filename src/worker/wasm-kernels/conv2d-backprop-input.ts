// Conv2DBackpropInput for the wasm backend: dx = col2im(dy · Wᵀ).
//
// The filter [kh, kw, inC, outC] is, as it lies in memory, a [K, outC] matrix (K = kh·kw·inC), so
// one BatchMatMul on the wasm backend (XNNPACK, SIMD) of dy [n, outC] with it transposed (in JS:
// wasm's BatchMatMul with transposeB is several times slower) gives,
// for each of the n = batch·outH·outW output positions, its K column contributions
// cols[n, (kh, kw, ci)] = Σ_co dy[n, co] · W[kh, kw, ci, co]. These are then scatter-added in JS
// into dx[b, oh·sh + kh − top, ow·sw + kw − left, ci] (dropped in the padding). The output
// positions are taken in chunks that keep the column matrix under COL_FLOATS, so a large batch
// never needs a huge buffer. Replaces wasm's own kernel, which is correct but slow.
//
// NCHW is handled by transposing dy to NHWC and dx back (wasm Transpose). With the native
// convolution addon (native-conv.ts) the product and col2im run in C instead, on the same heap.
import type { Conv2DBackpropInputAttrs, TensorInfo } from '@tensorflow/tfjs';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';
import {
  type Conv2DInfo,
  copyDyRows,
  dispose,
  dySpatial,
  f32,
  type KernelArgs,
  makeOutput,
  requireFloat32,
  requireUnitDilations,
  runKernel,
  type TF,
} from './util.ts';
import { convGeometry, nativeConv } from './native-conv.ts';

const KERNEL = 'Conv2DBackpropInput';
/** Upper bound on one chunk's column matrix, in floats (16 MB). */
export const COL_FLOATS = 1 << 22;

export function conv2DBackpropInput(tf: TF, args: KernelArgs<Conv2DBackpropInputAttrs>, colFloats = COL_FLOATS): TensorInfo {
  const { inputs, backend, attrs } = args;
  let dy = inputs.dy!;
  const filter = inputs.filter!;
  requireFloat32(KERNEL, ['dy', dy], ['filter', filter]);
  requireUnitDilations(KERNEL, (attrs as { dilations?: number | [number, number] }).dilations);
  const { strides, dataFormat, dimRoundingMode } = attrs;
  let { pad, inputShape } = attrs;
  const nchw = dataFormat === 'NCHW';
  if (nchw) {
    dy = runKernel(tf, backend, 'Transpose', { x: dy }, { perm: [0, 2, 3, 1] });
    const [b, c, h, w] = inputShape;
    inputShape = [b, h, w, c];
    if (Array.isArray(pad)) pad = [pad[0], pad[2], pad[3], pad[1]];
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- attrs arrive untyped from the engine (runKernel)
  } else if (dataFormat != null && dataFormat !== 'NHWC') {
    throw new Error(`${KERNEL} (wasm, mgpu): dataFormat ${String(dataFormat)} is not supported`);
  }
  const info = tf.backend_util.computeConv2DInfo(
    inputShape,
    filter.shape as [number, number, number, number],
    strides,
    1,
    pad,
    dimRoundingMode,
    false,
    'channelsLast',
  );
  try {
    const dx = nhwc(tf, backend, info, dy, filter, colFloats);
    if (!nchw) return dx;
    const out = runKernel(tf, backend, 'Transpose', { x: dx }, { perm: [0, 3, 1, 2] });
    dispose(backend, dx);
    return out;
  } finally {
    if (nchw) dispose(backend, dy);
  }
}

function nhwc(tf: TF, backend: BackendWasm, info: Conv2DInfo, dy: TensorInfo, filter: TensorInfo, colFloats: number): TensorInfo {
  const { batchSize: B, inHeight: H, inWidth: W, inChannels: C, outHeight: OH, outWidth: OW, outChannels: CO } = info;
  const [dyH, dyW] = dySpatial(KERNEL, dy, info);
  const K = info.filterHeight * info.filterWidth * C;
  const N = B * OH * OW;
  const out = makeOutput(backend, [B, H, W, C]);
  const native = nativeConv().addon;
  if (native) {
    native.backpropInput(f32(backend, dy), f32(backend, filter), f32(backend, out), convGeometry(info, dyH, dyW));
    return out;
  }
  f32(backend, out).fill(0);
  if (N === 0 || K === 0 || CO === 0) return out;
  const compact = dyH === OH && dyW === OW;
  const rowsPerChunk = Math.max(1, Math.min(N, Math.floor(colFloats / K)));
  // Wᵀ [outC, K], transposed here (it is small): wasm's BatchMatMul with transposeB is far slower.
  const w = makeOutput(backend, [1, CO, K]);
  transposeInto(f32(backend, filter), f32(backend, w), K, CO);
  try {
    for (let n0 = 0; n0 < N; n0 += rowsPerChunk) {
      const n1 = Math.min(N, n0 + rowsPerChunk);
      const nc = n1 - n0;
      let dyChunk: TensorInfo;
      if (compact && nc === N) {
        dyChunk = runKernel(tf, backend, 'Reshape', { x: dy }, { shape: [1, N, CO] });
      } else {
        dyChunk = makeOutput(backend, [1, nc, CO]);
        copyDyRows(f32(backend, dy), dyH, dyW, f32(backend, dyChunk), info, n0, n1);
      }
      const cols = runKernel(tf, backend, 'BatchMatMul', { a: dyChunk, b: w }, { transposeA: false, transposeB: false });
      dispose(backend, dyChunk);
      // Views only now: the allocations above may have grown (and detached) the heap.
      col2im(f32(backend, cols), f32(backend, out), info, n0, n1);
      dispose(backend, cols);
    }
  } finally {
    dispose(backend, w);
  }
  return out;
}

/** dst[co, k] = src[k, co]. */
function transposeInto(src: Float32Array, dst: Float32Array, K: number, CO: number): void {
  for (let k = 0; k < K; k++) {
    for (let co = 0, s = k * CO; co < CO; co++, s++) dst[co * K + k] = src[s]!;
  }
}

/** dx[b, oh·sh + kh − top, ow·sw + kw − left, ci] += cols[n − n0, (kh, kw, ci)] for n = (b, oh, ow). */
export function col2im(cols: Float32Array, dx: Float32Array, info: Conv2DInfo, n0: number, n1: number): void {
  const { inHeight: H, inWidth: W, inChannels: C, outHeight: OH, outWidth: OW, strideHeight: sh, strideWidth: sw, filterHeight: KH, filterWidth: KW } = info;
  const top = info.padInfo.top;
  const left = info.padInfo.left;
  const K = KH * KW * C;
  const rowC = W * C;
  let n = n0;
  let b = Math.floor(n / (OH * OW));
  const rem = n - b * OH * OW;
  let oh = Math.floor(rem / OW);
  let ow = rem - oh * OW;
  for (let src = 0; n < n1; n++, src += K) {
    const ih0 = oh * sh - top;
    const iw0 = ow * sw - left;
    // Taps inside the image: kh in [khLo, khHi), kw in [kwLo, kwHi).
    const khLo = Math.max(0, -ih0);
    const khHi = Math.min(KH, H - ih0);
    const kwLo = Math.max(0, -iw0);
    const kwHi = Math.min(KW, W - iw0);
    const img = b * H * rowC;
    for (let kh = khLo; kh < khHi; kh++) {
      let d = img + (ih0 + kh) * rowC + (iw0 + kwLo) * C;
      let s = src + (kh * KW + kwLo) * C;
      const len = (kwHi - kwLo) * C;
      for (let i = 0; i < len; i++) dx[d++]! += cols[s++]!;
    }
    if (++ow === OW) {
      ow = 0;
      if (++oh === OH) {
        oh = 0;
        b++;
      }
    }
  }
}
