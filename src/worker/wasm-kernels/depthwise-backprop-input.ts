// DepthwiseConv2dNativeBackpropInput for the wasm backend, in plain JS over the heap:
//   dx[b, ih, iw, c] = Σ_{kh, kw, m} dy[b, oh, ow, c·M + m] · W[kh, kw, c, m]
// over the taps with ih = oh·sh + kh − top and iw = ow·sw + kw − left. Per image and channel,
// the M dy planes are copied into contiguous scratch and scattered, one tap at a time with the
// weight in a register, into a zero-padded float64 plane (no bounds checks), whose interior is
// then written to dx. Sums are float64, rounded once.
import type { DepthwiseConv2dNativeBackpropInputAttrs, TensorInfo } from '@tensorflow/tfjs';
import { PaddedPlane } from './depthwise-backprop-filter.ts';
import { dySpatial, f32, type KernelArgs, makeOutput, requireFloat32, requireUnitDilations, type TF } from './util.ts';

const KERNEL = 'DepthwiseConv2dNativeBackpropInput';

export function depthwiseConv2dNativeBackpropInput(tf: TF, args: KernelArgs<DepthwiseConv2dNativeBackpropInputAttrs>): TensorInfo {
  const { inputs, backend, attrs } = args;
  const dy = inputs.dy!;
  const filter = inputs.filter!;
  requireFloat32(KERNEL, ['dy', dy], ['filter', filter]);
  requireUnitDilations(KERNEL, attrs.dilations);
  const { strides, pad, dimRoundingMode, inputShape } = attrs;
  const info = tf.backend_util.computeConv2DInfo(
    inputShape, filter.shape as [number, number, number, number], strides, 1, pad, dimRoundingMode, true,
  );
  const { batchSize: B, inHeight: H, inWidth: W, inChannels: C, outHeight: OH, outWidth: OW, outChannels: CO } = info;
  const { strideHeight: sh, strideWidth: sw, filterHeight: KH, filterWidth: KW } = info;
  const M = CO / C;
  const [dyH, dyW] = dySpatial(KERNEL, dy, info);
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
            for (let ow = 0, src = ((b * dyH + oh) * dyW) * CO + d; ow < OW; ow++, i++, src += CO) dyPlane[i] = dyv[src]!;
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
