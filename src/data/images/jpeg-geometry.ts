// Where the native JPEG decoder (jpeg-native.ts) reads from and writes to, worked out as sharp
// works it out for the same resize (sharp 0.35's pipeline and libvips's reduce), so that the two
// decoders differ by the resampling's rounding only, never by a pixel's shift:
//   stretch  each axis from the whole image to the size;
//   crop     both axes by the smaller shrink (the image covers the size), rounded, then the centre
//            cut, its offset rounded up ((resized - size + 1) >> 1, sharp's centre crop);
//   pad      both axes by the larger shrink, rounded, placed at ((size - resized) >> 1) in zeros;
//   a box    (a random resized crop) stretched to the size, read from the full-size decode.
// The DCT scaling (decoding at 1/2, 1/4 or 1/8 straight from the JPEG) is sharp's shrink-on-load:
// without a box, the largest of 8, 4, 2 that the resize's shrink reaches (the smaller of the axes'
// for stretch and crop, the larger for pad), halved where the shrink's whole part equals it
// (sharp's guard against libjpeg's rounding: a shrink of 2.1 decodes whole).
// Enlarging, libvips samples at i * scale - 0.5 (in pixel indices) where PIL samples at
// (i + 0.5) * scale - 0.5: jpeg-resample.c follows libvips. What is not matched is sharp's
// (likeSharp).
import type { Box } from './augment-draws.ts';
import type { DecodeSpec } from './decode-spec.ts';

export type Denom = 1 | 2 | 4 | 8;

/** One axis, as jpeg-resample.h's mgpu_axis. */
export interface Axis {
  srcStart: number;
  srcLen: number;
  fullLen: number;
  dstOff: number;
  dstCount: number;
  outOff: number;
  scale: number; // source pixels per output pixel
}

export interface JpegPlan {
  denom: Denom;
  axes: Float64Array; // x then y, 7 values each: what the addon's decode takes
}

/** The plan for a `width` x `height` JPEG to `spec`'s size and resize mode, or from `box`. */
export function jpegPlan(width: number, height: number, spec: Pick<DecodeSpec, 'width' | 'height' | 'resize'>, box: Box | null): JpegPlan {
  if (box) return packed(1, stretch(box.left, box.width, spec.width), stretch(box.top, box.height, spec.height));
  const hs = width / spec.width;
  const vs = height / spec.height;
  const shrink = spec.resize === 'pad' ? Math.max(hs, vs) : Math.min(hs, vs);
  const denom = shrinkOnLoad(shrink);
  const sw = Math.ceil(width / denom); // libjpeg's scaled size (TJSCALED)
  const sh = Math.ceil(height / denom);
  if (spec.resize === 'stretch') return packed(denom, stretch(0, sw, spec.width), stretch(0, sh, spec.height));
  const fw = Math.max(1, Math.round(width / shrink));
  const fh = Math.max(1, Math.round(height / shrink));
  const axis = spec.resize === 'crop' ? cropped : padded;
  // One shrink for both axes, as sharp resizes (after a DCT scaling: the scaled size over the target's).
  return packed(denom, axis(sw, fw, spec.width, (sw * shrink) / width), axis(sh, fh, spec.height, (sh * shrink) / height));
}

function shrinkOnLoad(shrink: number): Denom {
  const d = shrink >= 8 ? 8 : shrink >= 4 ? 4 : shrink >= 2 ? 2 : 1;
  return (Math.floor(shrink) === d && d > 1 ? d / 2 : d) as Denom;
}

const stretch = (start: number, len: number, size: number): Axis => ({
  srcStart: start,
  srcLen: len,
  fullLen: size,
  dstOff: 0,
  dstCount: size,
  outOff: 0,
  scale: len / size,
});

/** Resized by `scale` to `full` (at least `size`), the centre `size` kept. */
const cropped = (src: number, full: number, size: number, scale: number): Axis => ({
  srcStart: 0,
  srcLen: src,
  fullLen: full,
  dstOff: (full - size + 1) >> 1,
  dstCount: size,
  outOff: 0,
  scale,
});

/** Resized by `scale` to `full` (at most `size`), written at the centre of `size`. */
const padded = (src: number, full: number, size: number, scale: number): Axis => ({
  srcStart: 0,
  srcLen: src,
  fullLen: full,
  dstOff: 0,
  dstCount: full,
  outOff: (size - full) >> 1,
  scale,
});

/**
 * Whether the native decoder makes sharp's pixels for `plan` (of a `width` x `height` JPEG), to
 * the resampling's rounding: not where one axis enlarges and the other shrinks (libvips places
 * the enlarged axis's pixels otherwise: 3.8-6 levels apart in the tests), nor where a DCT-scaled
 * decode's edge is a partial block (a size not a multiple of the scale: sharp's rows there are
 * 1-6 levels from any placing tried). Such images are sharp's.
 */
export function likeSharp(plan: JpegPlan, width: number, height: number): boolean {
  const a = plan.axes;
  const sameWay = a[6]! >= 1 === a[13]! >= 1;
  return sameWay && width % plan.denom === 0 && height % plan.denom === 0;
}

function packed(denom: Denom, x: Axis, y: Axis): JpegPlan {
  const values = [x, y].flatMap((a) => [a.srcStart, a.srcLen, a.fullLen, a.dstOff, a.dstCount, a.outOff, a.scale]);
  return { denom, axes: Float64Array.from(values) };
}
