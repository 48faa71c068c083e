// One image file (or an image's bytes from a TFRecord record) to its row. sharp decodes it,
// drops alpha, converts it to 1 (libvips's b-w) or 3 (sRGB) channels of 8 bits (from grey, RGB,
// RGBA, palette, 16-bit), and resizes it to the split's size with bilinear interpolation
// (libvips's reduce, antialiased when shrinking, like PIL's): `stretch` to the size, `crop` the
// centre at the size's aspect ratio then resize, `pad` resize inside it and fill the rest with 0.
// An image already of the size is not resized.
// A random resized crop cuts its box from the decoded image first, then stretches it. A plain
// 8-bit PNG already of the size skips sharp (png-same-size.ts): the same pixels, ten times faster.
// A JPEG the native decoder takes (decode-jpeg-native.ts, where the mgpu_jpeg addon is built)
// skips sharp too: libjpeg-turbo called in the thread, the same geometry, about twice as fast.
import fs from 'node:fs';
import { DataError, messageOf } from '../../shared/errors.ts';
import { augmentRng, drawAugment, type Draws } from './augment-draws.ts';
import { BAD_FILE_HINTS, type DecodeSpec } from './decode-spec.ts';
import { placeRow } from './place-row.ts';
import { decodeSameSizePng } from './png-same-size.ts';
import { decodeJpegNative } from './decode-jpeg-native.ts';
import type { Sharp } from './sharp-module.ts';

const FIT = { stretch: 'fill', crop: 'cover', pad: 'contain' } as const;

/** Decodes `file` and writes its row into `out`; a file that is not a readable image is a DataError naming it. */
export async function decodeInto(
  sharp: Sharp,
  file: string,
  spec: DecodeSpec,
  epoch: number,
  sample: number,
  table: Float32Array,
  out: Uint8Array,
): Promise<void> {
  try {
    const bytes = fs.readFileSync(file); // one read; sharp then decodes from memory (faster than from the path)
    await decodeBytesInto(sharp, bytes, spec, epoch, sample, table, out);
  } catch (err) {
    throw badImage(file, err, spec.badFileHint ?? BAD_FILE_HINTS.train);
  }
}

/** Decodes an encoded image held in memory (a file's bytes, a record's feature) into `out`; throws what the decoder throws. */
export async function decodeBytesInto(
  sharp: Sharp,
  bytes: Buffer,
  spec: DecodeSpec,
  epoch: number,
  sample: number,
  table: Float32Array,
  out: Uint8Array,
): Promise<void> {
  const rng = spec.augment ? augmentRng(spec.seed, epoch, sample) : null;
  const upright = spec.orientation === 'exif';
  // A PNG can carry EXIF too (an eXIf chunk): such a file goes through sharp to be turned.
  if (!spec.augment?.randomResizedCrop && !(upright && bytes.includes('eXIf'))) {
    const px = decodeSameSizePng(bytes, spec.width, spec.height, spec.channels);
    if (px) {
      placeRow(px, spec, spec.augment ? drawAugment(spec.augment, rng!, 0, 0) : null, table, out);
      return;
    }
  }
  if (decodeJpegNative(bytes, spec, epoch, sample, table, out)) return;
  let img = sharp(bytes, { failOn: 'warning', limitInputPixels: 1 << 28 });
  if (upright) img = img.rotate(); // no angle: by the EXIF orientation, before the crop box and the resize
  let draws: Draws | null = null;
  let size: { width: number; height: number } | null = null;
  if (spec.augment) {
    if (spec.augment.randomResizedCrop) size = await dimensions(img, upright);
    draws = drawAugment(spec.augment, rng!, size?.width ?? 0, size?.height ?? 0);
    if (draws.box) img = img.extract(draws.box);
  }
  img = img.removeAlpha().toColourspace(spec.channels === 1 ? 'b-w' : 'srgb');
  const sized = size && !draws?.box ? size : null;
  if (!(sized && sized.width === spec.width && sized.height === spec.height)) {
    img = img.resize(spec.width, spec.height, { fit: draws?.box ? 'fill' : FIT[spec.resize], kernel: 'linear', background: { r: 0, g: 0, b: 0 } });
  }
  const { data, info } = await img.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  if (info.width !== spec.width || info.height !== spec.height || info.channels !== spec.channels)
    throw new Error(`decoded to ${info.width}x${info.height}x${info.channels}, expected ${spec.width}x${spec.height}x${spec.channels}`);
  placeRow(new Uint8Array(data.buffer, data.byteOffset, data.length), spec, draws, table, out);
}

/** The decoded size; `upright`: after the EXIF orientation (5-8 turn it a quarter, swapping width and height). */
async function dimensions(img: ReturnType<Sharp>, upright: boolean): Promise<{ width: number; height: number }> {
  const m = await img.metadata();
  return upright && (m.orientation ?? 1) >= 5 ? { width: m.height, height: m.width } : { width: m.width, height: m.height };
}

/** `fix`: the hint, which says what to do next (spec.badFileHint: train, eval and predict differ). */
export function badImage(file: string, err: unknown, fix: string): DataError {
  if (err instanceof DataError) return err;
  let size: number | null = null;
  try {
    size = fs.statSync(file).size;
  } catch (e) {
    return new DataError(
      `cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'the file is gone (it was there when the split was indexed)' : messageOf(e)}`,
      fix,
    );
  }
  if (size === 0) return new DataError(`cannot decode ${file}: the file is empty (0 bytes)`, fix);
  const sys = (err as NodeJS.ErrnoException).code; // reading it failed (permissions, a folder, ...), not decoding
  if (typeof sys === 'string' && sys.startsWith('E')) return new DataError(`cannot read ${file}: ${messageOf(err)}`, fix);
  return new DataError(`cannot decode ${file} (${size} bytes): ${decoderSays(err)}`, fix);
}

/** What the decoder's error says, in the words of the messages of a bad image. */
export function decoderSays(err: unknown): string {
  const said = messageOf(err)
    .split('\n')[0]!
    .replace(/^Input file /, '');
  return /unsupported image format/.test(said)
    ? 'not an image the decoder reads (sharp: unsupported image format)'
    : /Warning treated as error/.test(said)
      ? 'damaged or truncated (the decoder warned while reading it)'
      : `sharp says: ${said}`;
}
