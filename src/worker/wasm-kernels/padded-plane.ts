// A scratch plane for the depthwise gradient kernels: one channel of one image of an NHWC
// tensor in float64, with the convolution's zero padding around it, so that the inner loops over
// a filter tap need no bounds checks and stay in cache.
import type { Conv2DInfo } from './util.ts';

/**
 * One channel of one image of an NHWC tensor, as a float64 plane padded with zeros so that
 * padded row oh·sh + kh, column ow·sw + kw is input pixel (row − top, column − left) or 0.
 */
export class PaddedPlane {
  readonly data: Float64Array;
  readonly width: number;
  readonly height: number;
  private readonly info: Conv2DInfo;

  constructor(info: Conv2DInfo) {
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

  /** Writes the plane's interior to channel c of image b of `dst` ([B, H, W, C]). */
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
      const s = (ih + padInfo.top) * this.width + padInfo.left;
      for (let iw = 0; iw < W; iw++, d += C) dst[d] = iw >= c0 && iw < c1 ? p[s + iw]! : 0;
    }
  }
}
