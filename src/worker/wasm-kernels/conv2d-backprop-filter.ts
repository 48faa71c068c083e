// Conv2DBackpropFilter for the wasm backend: dW = im2col(x)ᵀ · dy.
//
// The patches are gathered in JS straight into a heap tensor laid out [K, n] (K = kh·kw·inC, one
// row per filter tap, n = the batch·outH·outW output positions), so the product with dy [n, outC]
// is a plain BatchMatMul on the wasm backend (XNNPACK, SIMD), with no transposes, and lands in
// the filter's own [kh, kw, inC, outC] order. The output positions are taken in chunks that
// keep the patch matrix under PATCH_FLOATS, so a large batch never needs a huge buffer. With the
// native convolution addon (native-conv.ts) the patches and the product are made in C instead.
import type { Conv2DBackpropFilterAttrs, TensorInfo } from '@tensorflow/tfjs';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';
import { convGeometry, nativeConv } from './native-conv.ts';
import { type Conv2DInfo, copyDyRows, dispose, dySpatial, f32, type KernelArgs, makeOutput, requireFloat32, runKernel, type TF } from './util.ts';

const KERNEL = 'Conv2DBackpropFilter';
/** Upper bound on one chunk's patch matrix, in floats (16 MB). */
export const PATCH_FLOATS = 1 << 22;

export function conv2DBackpropFilter(tf: TF, args: KernelArgs<Conv2DBackpropFilterAttrs>, patchFloats = PATCH_FLOATS): TensorInfo {
  const { inputs, backend, attrs } = args;
  let x = inputs.x!;
  let dy = inputs.dy!;
  requireFloat32(KERNEL, ['x', x], ['dy', dy]);
  const { strides, dataFormat, dimRoundingMode, filterShape } = attrs;
  let pad = attrs.pad;
  const owned: TensorInfo[] = [];
  if (dataFormat === 'NCHW') {
    // Work in NHWC: transpose both operands (wasm Transpose) and the explicit padding.
    x = runKernel(tf, backend, 'Transpose', { x }, { perm: [0, 2, 3, 1] });
    dy = runKernel(tf, backend, 'Transpose', { x: dy }, { perm: [0, 2, 3, 1] });
    owned.push(x, dy);
    if (Array.isArray(pad)) pad = [pad[0], pad[2], pad[3], pad[1]];
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- attrs arrive untyped from the engine (runKernel)
  } else if (dataFormat != null && dataFormat !== 'NHWC') {
    throw new Error(`${KERNEL} (wasm, mgpu): dataFormat ${String(dataFormat)} is not supported`);
  }
  const info = tf.backend_util.computeConv2DInfo(
    x.shape as [number, number, number, number],
    filterShape,
    strides,
    1,
    pad,
    dimRoundingMode,
    false,
    'channelsLast',
  );
  const [dyH, dyW] = dySpatial(KERNEL, dy, info);
  const compact = dyH === info.outHeight && dyW === info.outWidth;
  const K = info.filterHeight * info.filterWidth * info.inChannels;
  const N = info.batchSize * info.outHeight * info.outWidth;
  const CO = info.outChannels;
  const native = nativeConv().addon;
  // The JavaScript path's chunks of output positions (the native path blocks its own).
  const rowsPerChunk = native ? N : Math.max(1, Math.min(N, Math.floor(patchFloats / Math.max(1, K))));

  let result: TensorInfo;
  if (native) {
    result = makeOutput(backend, filterShape);
    native.backpropFilter(f32(backend, x), f32(backend, dy), f32(backend, result), convGeometry(info, dyH, dyW));
  } else if (N === 0 || K === 0 || CO === 0) {
    result = makeOutput(backend, filterShape, 'float32', new Float32Array(K * CO));
  } else if (rowsPerChunk >= N && compact) {
    const prod = chunkProduct(tf, backend, info, x, dy, 0, N, true);
    result = runKernel(tf, backend, 'Reshape', { x: prod }, { shape: filterShape });
    dispose(backend, prod);
  } else {
    // Chunks: partial products summed in float64, then one output.
    const acc = new Float64Array(K * CO);
    for (let n0 = 0; n0 < N; n0 += rowsPerChunk) {
      const prod = chunkProduct(tf, backend, info, x, dy, n0, Math.min(N, n0 + rowsPerChunk), false);
      const p = f32(backend, prod);
      for (let i = 0; i < acc.length; i++) acc[i]! += p[i]!;
      dispose(backend, prod);
    }
    result = makeOutput(backend, filterShape, 'float32', Float32Array.from(acc));
  }
  dispose(backend, ...owned);
  return result;
}

/** patchesᵀ[:, n0:n1] · dy[n0:n1, :] as a [1, K, outC] heap tensor. */
function chunkProduct(tf: TF, backend: BackendWasm, info: Conv2DInfo, x: TensorInfo, dy: TensorInfo, n0: number, n1: number, wholeDy: boolean): TensorInfo {
  const K = info.filterHeight * info.filterWidth * info.inChannels;
  const CO = info.outChannels;
  const nc = n1 - n0;
  const patches = makeOutput(backend, [1, K, nc]);
  let dyChunk: TensorInfo;
  if (wholeDy) {
    dyChunk = runKernel(tf, backend, 'Reshape', { x: dy }, { shape: [1, nc, CO] });
  } else {
    dyChunk = makeOutput(backend, [1, nc, CO]);
    copyDyRows(f32(backend, dy), dy.shape[1]!, dy.shape[2]!, f32(backend, dyChunk), info, n0, n1);
  }
  // Views only now: the allocations above may have grown (and detached) the heap.
  fillPatchesT(f32(backend, x), f32(backend, patches), info, n0, n1);
  const prod = runKernel(tf, backend, 'BatchMatMul', { a: patches, b: dyChunk }, { transposeA: false, transposeB: false });
  dispose(backend, patches, dyChunk);
  return prod;
}

/**
 * out[k, j] = x[b, oh·sh + kh − top, ow·sw + kw − left, ci] (0 in the padding), for k = (kh, kw, ci)
 * and output position n0 + j = (b, oh, ow).
 */
export function fillPatchesT(x: Float32Array, out: Float32Array, info: Conv2DInfo, n0: number, n1: number): void {
  const { inHeight: H, inWidth: W, inChannels: C, outHeight: OH, outWidth: OW, strideHeight: sh, strideWidth: sw, filterHeight: KH, filterWidth: KW } = info;
  const top = info.padInfo.top;
  const left = info.padInfo.left;
  const nc = n1 - n0;
  const xRow = W * C;
  const xImg = H * xRow;
  for (let kh = 0; kh < KH; kh++) {
    for (let kw = 0; kw < KW; kw++) {
      // Output columns whose tap (kw) lands inside the image: ow in [owLo, owHi).
      const owLo = Math.min(OW, Math.max(0, Math.ceil((left - kw) / sw)));
      const owHi = Math.max(owLo, Math.min(OW, Math.floor((W - 1 + left - kw) / sw) + 1));
      for (let ci = 0; ci < C; ci++) {
        const k = (kh * KW + kw) * C + ci;
        const rowBase = k * nc;
        // Walk the chunk one (b, oh) image row at a time.
        let n = n0;
        while (n < n1) {
          const b = Math.floor(n / (OH * OW));
          const rem = n - b * OH * OW;
          const oh = Math.floor(rem / OW);
          const owStart = rem - oh * OW;
          const owEnd = Math.min(OW, owStart + (n1 - n));
          let j = rowBase + (n - n0);
          const ih = oh * sh + kh - top;
          if (ih < 0 || ih >= H) {
            out.fill(0, j, j + (owEnd - owStart));
          } else {
            const lo = Math.max(owStart, owLo);
            const hi = Math.min(owEnd, owHi);
            if (lo >= hi) {
              out.fill(0, j, j + (owEnd - owStart));
            } else {
              if (lo > owStart) out.fill(0, j, j + (lo - owStart));
              j += lo - owStart;
              let src = b * xImg + ih * xRow + (lo * sw + kw - left) * C + ci;
              const step = sw * C;
              for (let ow = lo; ow < hi; ow++, src += step) out[j++] = x[src]!;
              if (hi < owEnd) out.fill(0, j, j + (owEnd - hi));
            }
          }
          n += owEnd - owStart;
        }
      }
    }
  }
}
