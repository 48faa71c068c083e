// DepthwiseConv2dNativeBackpropFilter for the wasm backend, in plain JS over the heap:
//   dW[kh, kw, c, m] = Σ_{b, oh, ow} x[b, oh·sh + kh − top, ow·sw + kw − left, c] · dy[b, oh, ow, c·M + m]
// Each channel is its own small 2-D correlation (there is no matmul to hand to XNNPACK). Per
// image and channel, the x plane is copied once into a zero-padded float64 scratch plane and the
// M dy planes into contiguous scratch, so every tap is a bounds-check-free dot product summed
// in a register, over data that stays in cache. Sums are float64, rounded once at the end.
import type { DepthwiseConv2dNativeBackpropFilterAttrs, TensorInfo } from '@tensorflow/tfjs';
import { dySpatial, f32, type KernelArgs, makeOutput, requireFloat32, requireUnitDilations, type TF } from './util.ts';

const KERNEL = 'DepthwiseConv2dNativeBackpropFilter';

export function depthwiseConv2dNativeBackpropFilter(tf: TF, args: KernelArgs<DepthwiseConv2dNativeBackpropFilterAttrs>): TensorInfo {
  const { inputs, backend, attrs } = args;
  const x = inputs.x!;
  const dy = inputs.dy!;
  requireFloat32(KERNEL, ['x', x], ['dy', dy]);
  requireUnitDilations(KERNEL, attrs.dilations);
  const { strides, pad, dimRoundingMode, filterShape } = attrs;
  const info = tf.backend_util.computeConv2DInfo(
    x.shape as [number, number, number, number], filterShape, strides, 1, pad, dimRoundingMode, true,
  );
  const { batchSize: B, inHeight: H, inWidth: W, inChannels: C, outHeight: OH, outWidth: OW, outChannels: CO } = info;
  const { strideHeight: sh, strideWidth: sw, filterHeight: KH, filterWidth: KW } = info;
  const M = CO / C;
  const [dyH, dyW] = dySpatial(KERNEL, dy, info);
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
            for (let ow = 0, src = ((b * dyH + oh) * dyW) * CO + d; ow < OW; ow++, i++, src += CO) dyPlane[i] = dyv[src]!;
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

/**
 * One channel of one image of an NHWC tensor, as a float64 plane padded with zeros so that
 * padded row oh·sh + kh, column ow·sw + kw is input pixel (row − top, column − left) or 0.
 */
export class PaddedPlane {
  readonly data: Float64Array;
  readonly width: number;
  readonly height: number;
  private readonly info: import('./util.ts').Conv2DInfo;

  constructor(info: import('./util.ts').Conv2DInfo) {
    this.info = info;
    this.height = (info.outHeight - 1) * info.strideHeight + info.filterHeight;
    this.width = (info.outWidth - 1) * info.strideWidth + info.filterWidth;
    this.data = new Float64Array(this.height * this.width);
  }

  /** Input rows/columns that fall inside the plane: [lo, hi) in input coordinates. */
  rows(): [number, number] {
    const top = this.info.padInfo.top;
    return [Math.max(0, -top), Math.min(this.info.inHeight, this.height - top)];
  }

  cols(): [number, number] {
    const left = this.info.padInfo.left;
    return [Math.max(0, -left), Math.min(this.info.inWidth, this.width - left)];
  }

  /** Copies channel c of image b of `src` ([B, H, W, C]) in, zeros around it. */
  load(src: Float32Array, b: number, c: number): void {
    const { inHeight: H, inWidth: W, inChannels: C, padInfo } = this.info;
    const p = this.data;
    p.fill(0);
    const [r0, r1] = this.rows();
    const [c0, c1] = this.cols();
    for (let ih = r0; ih < r1; ih++) {
      let dst = (ih + padInfo.top) * this.width + c0 + padInfo.left;
      let s = ((b * H + ih) * W + c0) * C + c;
      for (let iw = c0; iw < c1; iw++, s += C) p[dst++] = src[s]!;
    }
  }

  /** Adds nothing, copies the plane's interior out to channel c of image b of `dst`. */
  store(dst: Float32Array, b: number, c: number): void {
    const { inHeight: H, inWidth: W, inChannels: C, padInfo } = this.info;
    const p = this.data;
    // Input pixels the plane does not reach (a 'valid' conv's unused edge) get 0.
    const [r0, r1] = this.rows();
    const [c0, c1] = this.cols();
    for (let ih = 0; ih < H; ih++) {
      let d = (b * H + ih) * W * C + c;
      if (ih < r0 || ih >= r1) {
        for (let iw = 0; iw < W; iw++, d += C) dst[d] = 0;
        continue;
      }
      let s = (ih + padInfo.top) * this.width + padInfo.left;
      for (let iw = 0; iw < W; iw++, d += C) dst[d] = iw >= c0 && iw < c1 ? p[s + iw]! : 0;
    }
  }
}
