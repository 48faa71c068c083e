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
  const moved = d.dy !== 0 || d.dx !== 0 || d.flip ? shifted(pixels, spec, d) : pixels;
  if (d.brightness !== 1 || d.contrast !== 1) {
    jittered(moved, spec, d, out);
    return;
  }
  if (spec.dtype === 'uint8') {
    out.set(moved);
    return;
  }
  const f = new Float32Array(out.buffer, out.byteOffset, moved.length);
  const c = spec.channels;
  for (let i = 0; i < moved.length; i++) f[i] = table[(i % c) * 256 + moved[i]!]!;
}

/** The padded crop, then the flip: out[y][x] = in[y + dy][(flip ? W - 1 - x : x) + dx], zero outside. */
function shifted(pixels: Uint8Array, spec: DecodeSpec, d: Draws): Uint8Array {
  const { height: H, width: W, channels: C } = spec;
  const out = new Uint8Array(pixels.length);
  for (let y = 0; y < H; y++) {
    const sy = y + d.dy;
    if (sy < 0 || sy >= H) continue;
    for (let x = 0; x < W; x++) {
      const sx = (d.flip ? W - 1 - x : x) + d.dx;
      if (sx < 0 || sx >= W) continue;
      for (let k = 0; k < C; k++) out[(y * W + x) * C + k] = pixels[(sy * W + sx) * C + k]!;
    }
  }
  return out;
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
