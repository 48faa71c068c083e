// DepthwiseConv2dNativeBackpropInput for the wasm backend:
//   dx[b, ih, iw, c] = Σ_{kh, kw, m} dy[b, oh, ow, c·M + m] · W[kh, kw, c, m]
// over the taps with ih = oh·sh + kh − top and iw = ow·sw + kw − left.
//
// Stride 1 (the common case): that is a depthwise correlation of dy with the filter turned by
// 180°, padded by (k − 1 − pad) on each side, so it runs on the wasm backend's own
// DepthwiseConv2dNative (XNNPACK) with the filter as [kh, kw, c·M, 1]; for M > 1 the M outputs of
// each channel are then summed (wasm Sum).
// Other strides: in C with the native convolution addon (native-conv.ts), else in plain JS: per image and channel, the M dy planes are copied into contiguous
// scratch and scattered, one tap at a time with the weight in a register, into a zero-padded
// float64 plane (no bounds checks), whose interior is then written to dx; rounded once.
import type { DepthwiseConv2dNativeBackpropInputAttrs, TensorInfo } from '@tensorflow/tfjs';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';
import { convGeometry, nativeConv } from './native-conv.ts';
import { PaddedPlane } from './padded-plane.ts';
import { type Conv2DInfo, dispose, dySpatial, f32, type KernelArgs, makeOutput, requireFloat32, requireUnitDilations, runKernel, type TF } from './util.ts';

const KERNEL = 'DepthwiseConv2dNativeBackpropInput';

export function depthwiseConv2dNativeBackpropInput(tf: TF, args: KernelArgs<DepthwiseConv2dNativeBackpropInputAttrs>): TensorInfo {
  const { inputs, backend, attrs } = args;
  const dy = inputs.dy!;
  const filter = inputs.filter!;
  requireFloat32(KERNEL, ['dy', dy], ['filter', filter]);
  requireUnitDilations(KERNEL, attrs.dilations);
  const { strides, pad, dimRoundingMode, inputShape } = attrs;
  const info = tf.backend_util.computeConv2DInfo(inputShape, filter.shape as [number, number, number, number], strides, 1, pad, dimRoundingMode, true);
  const { batchSize: B, inHeight: H, inWidth: W, inChannels: C, outHeight: OH, outWidth: OW, outChannels: CO } = info;
  const { strideHeight: sh, strideWidth: sw, filterHeight: KH, filterWidth: KW } = info;
  const M = CO / C;
  const [dyH, dyW] = dySpatial(KERNEL, dy, info);
  if (sh === 1 && sw === 1 && dyH === OH && dyW === OW && OH > 0 && OW > 0) {
    const viaWasm = stride1(tf, backend, info, dy, filter);
    if (viaWasm) return viaWasm;
  }
  const native = nativeConv().addon;
  if (native) {
    const out = makeOutput(backend, [B, H, W, C]);
    native.depthwiseBackpropInput(f32(backend, dy), f32(backend, filter), f32(backend, out), convGeometry(info, dyH, dyW));
    return out;
  }
  const out = makeOutput(backend, [B, H, W, C]);
  // Views after the allocation (it may grow the heap).
  const dx = f32(backend, out);
  if (OH === 0 || OW === 0) {
    dx.fill(0);
    return out;
  }
  const dyv = f32(backend, dy);
  const wv = f32(backend, filter);
  const plane = new PaddedPlane(info);
  const p = plane.data;
  const Wp = plane.width;
  const dyPlane = new Float64Array(OH * OW);
  for (let b = 0; b < B; b++) {
    for (let c = 0; c < C; c++) {
      p.fill(0);
      for (let m = 0; m < M; m++) {
        const d = c * M + m;
        for (let oh = 0, i = 0; oh < OH; oh++) {
          for (let ow = 0, src = (b * dyH + oh) * dyW * CO + d; ow < OW; ow++, i++, src += CO) dyPlane[i] = dyv[src]!;
        }
        for (let kh = 0; kh < KH; kh++) {
          for (let kw = 0; kw < KW; kw++) {
            const w = wv[(kh * KW + kw) * CO + d]!;
            for (let oh = 0, q = 0; oh < OH; oh++) {
              let r = (oh * sh + kh) * Wp + kw;
              for (let ow = 0; ow < OW; ow++, q++, r += sw) p[r]! += w * dyPlane[q]!;
            }
          }
        }
      }
      plane.store(dx, b, c);
    }
  }
  return out;
}

/**
 * Stride 1 on the wasm backend's DepthwiseConv2dNative: dx = correlate(dy, W turned 180°) with
 * padding (k − 1 − pad). Returns null when that padding would be negative (an explicit pad larger
 * than the filter), for the JS path to take.
 */
function stride1(tf: TF, backend: BackendWasm, info: Conv2DInfo, dy: TensorInfo, filter: TensorInfo): TensorInfo | null {
  const { inHeight: H, inWidth: W, inChannels: C, outHeight: OH, outWidth: OW, outChannels: CO, filterHeight: KH, filterWidth: KW } = info;
  const M = CO / C;
  const top = KH - 1 - info.padInfo.top;
  const left = KW - 1 - info.padInfo.left;
  const bottom = H - OH + KH - 1 - top;
  const right = W - OW + KW - 1 - left;
  if (top < 0 || left < 0 || bottom < 0 || right < 0) return null;
  // W [kh, kw, c, m] -> turned [KH-1-kh, KW-1-kw, c·M + m, 1]: same inner order, taps reversed.
  const turned = makeOutput(backend, [KH, KW, CO, 1]);
  const src = f32(backend, filter);
  const dst = f32(backend, turned);
  const taps = KH * KW;
  for (let t = 0; t < taps; t++) dst.set(src.subarray(t * CO, (t + 1) * CO), (taps - 1 - t) * CO);
  const pad = [
    [0, 0],
    [top, bottom],
    [left, right],
    [0, 0],
  ];
  const corr = runKernel(tf, backend, 'DepthwiseConv2dNative', { x: dy, filter: turned }, { strides: [1, 1], pad, dilations: [1, 1], dataFormat: 'NHWC' });
  dispose(backend, turned);
  if (M === 1) return corr;
  const split = runKernel(tf, backend, 'Reshape', { x: corr }, { shape: [info.batchSize, H, W, C, M] });
  const dx = runKernel(tf, backend, 'Sum', { x: split }, { axis: [4], keepDims: false });
  dispose(backend, corr, split);
  return dx;
}
