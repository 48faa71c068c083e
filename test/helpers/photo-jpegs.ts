// Photo-like JPEGs for the native decoder's tests: smooth gradients, a sharp-edged disc, a band of
// fine stripes (a pixel's shift shows there) and mild noise, written by sharp at quality 90. The
// bench's noisy images would hide nothing but also prove little: every pixel there is noise.
import { createRequire } from 'node:module';
import { decodeBytesInto } from '../../src/data/images/decode-image.ts';
import { decodeSpec, type DecodeSpec } from '../../src/data/images/decode-spec.ts';
import { JPEG_DECODER_ENV } from '../../src/data/images/jpeg-native.ts';
import { valueTable } from '../../src/data/images/place-row.ts';
import type { ImageAugment, ImageSource } from '../../src/config/types.ts';
import { mulberry32 } from '../../src/shared/rng.ts';

export const sharp = createRequire(import.meta.url)('sharp') as typeof import('sharp').default;

/** The RGB pixels of a `width` x `height` photo-like image (seeded by its size). */
export function photoPixels(width: number, height: number): Uint8Array {
  const rng = mulberry32(width * 7919 + height);
  const px = new Uint8Array(width * height * 3);
  const [cx, cy, r] = [width * 0.4, height * 0.45, Math.min(width, height) * 0.25];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      const disc = (x - cx) ** 2 + (y - cy) ** 2 < r * r;
      const stripes = y > height * 0.7 ? 60 * Math.sin((2 * Math.PI * x) / 7) : 0;
      const base = disc ? [210, 60, 40] : [(x * 255) / width, (y * 255) / height, 128 + 90 * Math.sin(x / 17) * Math.cos(y / 23)];
      for (let c = 0; c < 3; c++) px[o + c] = Math.max(0, Math.min(255, Math.round(base[c]! + stripes + (rng.float() - 0.5) * 12)));
    }
  }
  return px;
}

/** A photo-like JPEG; `grey`: one component (the pixels' luma). */
export function photoJpeg(width: number, height: number, opts: { grey?: boolean; quality?: number } = {}): Promise<Buffer> {
  let img = sharp(Buffer.from(photoPixels(width, height)), { raw: { width, height, channels: 3 } });
  if (opts.grey) img = img.toColourspace('b-w');
  return img.jpeg({ quality: opts.quality ?? 90 }).toBuffer();
}

/** A spec for `size` x `size` uint8 rows (rescale none), `resize` and `augment` as given. */
export function uint8Spec(size: number, channels: 1 | 3, resize: ImageSource['resize'], augment: ImageAugment | null = null): DecodeSpec {
  const src = { size: [size, size] as [number, number], channels, resize, rescale: 'none' as const, normalize: null, augment };
  return decodeSpec(src, augment !== null, 7);
}

/** The row `bytes` decode to with the native decoder (`native`) or sharp alone. */
export async function decodedBy(native: boolean, bytes: Buffer, spec: DecodeSpec, sample = 0): Promise<Uint8Array> {
  const before = process.env[JPEG_DECODER_ENV];
  if (native) delete process.env[JPEG_DECODER_ENV];
  else process.env[JPEG_DECODER_ENV] = 'sharp';
  try {
    const out = new Uint8Array(spec.width * spec.height * spec.channels);
    await decodeBytesInto(sharp, bytes, spec, 0, sample, valueTable(spec), out);
    return out;
  } finally {
    if (before === undefined) delete process.env[JPEG_DECODER_ENV];
    else process.env[JPEG_DECODER_ENV] = before;
  }
}

/** The mean and the largest absolute difference of two rows. */
export function difference(a: Uint8Array, b: Uint8Array): { mean: number; max: number } {
  let sum = 0;
  let max = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    sum += d;
    max = Math.max(max, d);
  }
  return { mean: sum / a.length, max };
}
