// DepthwiseConv2dNativeBackpropFilter for the wasm backend, in plain JS over the heap:
//   dW[kh, kw, c, m] = Σ_{b, oh, ow} x[b, oh·sh + kh − top, ow·sw + kw − left, c] · dy[b, oh, ow, c·M + m]
// Each channel is its own small 2-D correlation (there is no matmul to hand to XNNPACK). Per
// image and channel, the x plane is copied once into a zero-padded float64 scratch plane and the
// M dy planes into contiguous scratch, so every tap is a bounds-check-free dot product summed
// in a register, over data that stays in cache. Sums are float64, rounded once at the end. With
// the native convolution addon (native-conv.ts) the same sums run in C, channels innermost.
import type { DepthwiseConv2dNativeBackpropFilterAttrs, TensorInfo } from '@tensorflow/tfjs';
import { convGeometry, nativeConv } from './native-conv.ts';
import { PaddedPlane } from './padded-plane.ts';
import { dySpatial, f32, type KernelArgs, makeOutput, requireFloat32, requireUnitDilations, type TF } from './util.ts';

const KERNEL = 'DepthwiseConv2dNativeBackpropFilter';

export function depthwiseConv2dNativeBackpropFilter(tf: TF, args: KernelArgs<DepthwiseConv2dNativeBackpropFilterAttrs>): TensorInfo {
  const { inputs, backend, attrs } = args;
  const x = inputs.x!;
  const dy = inputs.dy!;
  requireFloat32(KERNEL, ['x', x], ['dy', dy]);
  requireUnitDilations(KERNEL, attrs.dilations);
  const { strides, pad, dimRoundingMode, filterShape } = attrs;
  const info = tf.backend_util.computeConv2DInfo(x.shape as [number, number, number, number], filterShape, strides, 1, pad, dimRoundingMode, true);
  const { batchSize: B, inChannels: C, outHeight: OH, outWidth: OW, outChannels: CO } = info;
  const { strideHeight: sh, strideWidth: sw, filterHeight: KH, filterWidth: KW } = info;
  const M = CO / C;
  const [dyH, dyW] = dySpatial(KERNEL, dy, info);
  const native = nativeConv().addon;
  if (native) {
    const out = makeOutput(backend, filterShape);
    native.depthwiseBackpropFilter(f32(backend, x), f32(backend, dy), f32(backend, out), convGeometry(info, dyH, dyW));
    return out;
  }
  const acc = new Float64Array(KH * KW * CO);
  if (OH > 0 && OW > 0) {
    const xv = f32(backend, x);
    const dyv = f32(backend, dy);
    const plane = new PaddedPlane(info);
    const dyPlane = new Float64Array(OH * OW);
    for (let b = 0; b < B; b++) {
      for (let c = 0; c < C; c++) {
        plane.load(xv, b, c);
        const p = plane.data;
        const Wp = plane.width;
        for (let m = 0; m < M; m++) {
          const d = c * M + m;
          for (let oh = 0, i = 0; oh < OH; oh++) {
            for (let ow = 0, src = (b * dyH + oh) * dyW * CO + d; ow < OW; ow++, i++, src += CO) dyPlane[i] = dyv[src]!;
          }
          for (let kh = 0; kh < KH; kh++) {
            for (let kw = 0; kw < KW; kw++) {
              let s = 0;
              for (let oh = 0, q = 0; oh < OH; oh++) {
                let r = (oh * sh + kh) * Wp + kw;
                for (let ow = 0; ow < OW; ow++, q++, r += sw) s += p[r]! * dyPlane[q]!;
              }
              acc[(kh * KW + kw) * CO + d]! += s;
            }
          }
        }
      }
    }
  }
  // [kh, kw, c·M + m] is the filter's [kh, kw, c, m] order.
  return makeOutput(backend, filterShape, 'float32', Float32Array.from(acc));
}
