// From a decoded image (uint8, height x width x channels, already the split's size) to its row:
// the padded crop (zeros outside the image), then the flip, brightness then contrast jitter, and the
// pixel values: k / 255 (rescale: unit) or k (none), then (x - mean[c]) / std[c] (normalize).
// Without jitter every value comes from a 256-entry table per channel, so a pixel k is always
// exactly the float32 of k / 255 (what the same pixels in an .npy hold).
import type { DecodeSpec } from './decode-spec.ts';
import type { Draws } from './augment-draws.ts';

const NONE: Draws = { box: null, dy: 0, dx: 0, flip: false, brightness: 1, contrast: 1 };

/** The value table: [channel * 256 + k]. */
export function valueTable(spec: DecodeSpec): Float32Array {
  const t = new Float32Array(spec.channels * 256);
  for (let c = 0; c < spec.channels; c++) for (let k = 0; k < 256; k++) t[c * 256 + k] = scaled(spec, c, k);
  return t;
}

function scaled(spec: DecodeSpec, c: number, v: number): number {
  const x = spec.rescale === 'unit' ? v / 255 : v;
  return spec.normalize ? (x - spec.normalize.mean[c]!) / spec.normalize.std[c]! : x;
}

/** Writes the row of `pixels` into `out` (rowBytesOf(spec) bytes). */
export function placeRow(pixels: Uint8Array, spec: DecodeSpec, draws: Draws | null, table: Float32Array, out: Uint8Array): void {
  const d = draws ?? NONE;
  const moves = d.dy !== 0 || d.dx !== 0 || d.flip;
  const jitters = d.brightness !== 1 || d.contrast !== 1;
  if (spec.dtype === 'uint8' && !jitters) {
    if (moves) shiftInto(pixels, spec, d, out.subarray(0, pixels.length));
    else out.set(pixels);
    return;
  }
  const moved = moves ? shiftInto(pixels, spec, d, new Uint8Array(pixels.length)) : pixels;
  if (jitters) {
    jittered(moved, spec, d, out);
    return;
  }
  const f = new Float32Array(out.buffer, out.byteOffset, moved.length);
  const c = spec.channels;
  for (let i = 0; i < moved.length; i++) f[i] = table[(i % c) * 256 + moved[i]!]!;
}

/**
 * The padded crop, then the flip: dst[y][x] = in[y + dy][(flip ? W - 1 - x : x) + dx], zero
 * outside. Rows are copied whole (unflipped) or pixel by pixel (flipped).
 */
function shiftInto(pixels: Uint8Array, spec: DecodeSpec, d: Draws, dst: Uint8Array): Uint8Array {
  const { height: H, width: W, channels: C } = spec;
  if (d.dy !== 0 || d.dx !== 0) dst.fill(0);
  // The columns x whose source column lies inside the image.
  const x0 = Math.max(0, d.flip ? d.dx : -d.dx);
  const x1 = Math.min(W, d.flip ? W + d.dx : W - d.dx);
  for (let y = 0; y < H; y++) {
    const sy = y + d.dy;
    if (sy < 0 || sy >= H) continue;
    const src = sy * W * C;
    const row = y * W * C;
    if (!d.flip) {
      dst.set(pixels.subarray(src + (x0 + d.dx) * C, src + (x1 + d.dx) * C), row + x0 * C);
      continue;
    }
    let s = src + (W - 1 - x0 + d.dx) * C;
    const end = row + x1 * C;
    if (C === 3) {
      for (let o = row + x0 * 3; o < end; o += 3, s -= 3) {
        dst[o] = pixels[s]!;
        dst[o + 1] = pixels[s + 1]!;
        dst[o + 2] = pixels[s + 2]!;
      }
    } else {
      for (let o = row + x0; o < end; o++, s--) dst[o] = pixels[s]!;
    }
  }
  return dst;
}

/**
 * torchvision's adjust_brightness then adjust_contrast, on the 0-255 scale: v * b, then
 * c * v + (1 - c) * m with m the mean grey (0.299 R + 0.587 G + 0.114 B) of the brightened
 * image, each clamped to [0, 255]; uint8 rows round to the nearest integer.
 */
function jittered(pixels: Uint8Array, spec: DecodeSpec, d: Draws, out: Uint8Array): void {
  const C = spec.channels;
  const v = new Float64Array(pixels.length);
  for (let i = 0; i < v.length; i++) v[i] = Math.min(255, pixels[i]! * d.brightness);
  let sum = 0;
  for (let p = 0; p < v.length; p += C) sum += C === 1 ? v[p]! : 0.299 * v[p]! + 0.587 * v[p + 1]! + 0.114 * v[p + 2]!;
  const mean = sum / (v.length / C);
  for (let i = 0; i < v.length; i++) v[i] = Math.min(255, Math.max(0, d.contrast * v[i]! + (1 - d.contrast) * mean));
  if (spec.dtype === 'uint8') {
    for (let i = 0; i < v.length; i++) out[i] = Math.round(v[i]!);
    return;
  }
  const f = new Float32Array(out.buffer, out.byteOffset, v.length);
  for (let i = 0; i < v.length; i++) f[i] = scaled(spec, i % C, v[i]!);
}
