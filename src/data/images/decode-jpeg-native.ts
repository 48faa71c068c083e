// The native decoder's share of decodeBytesInto (decode-image.ts): a JPEG it fully handles is
// decoded and resized by it (jpeg-native.ts, jpeg-geometry.ts), then placed as sharp's pixels are;
// anything else returns false and goes to sharp. It takes 8-bit Huffman JPEGs (baseline,
// extended, progressive) of 1 or 3 components, to 3 channels, or to 1 from a grey JPEG; without an
// ICC profile (sharp converts those to sRGB); under `orientation: exif` only those already
// upright; not one that an axis enlarges and the other shrinks, nor a DCT-scaled one whose size
// is not a multiple of the scale (jpeg-geometry.ts likeSharp). A JPEG it fails to decode goes to
// sharp as well, which decodes it or says what is wrong with it in the words of every other bad
// file.
import { augmentRng, drawAugment } from './augment-draws.ts';
import type { DecodeSpec } from './decode-spec.ts';
import { jpegPlan, likeSharp } from './jpeg-geometry.ts';
import { jpegFacts, type JpegFacts } from './jpeg-markers.ts';
import { jpegAddon } from './jpeg-native.ts';
import { placeRow } from './place-row.ts';

const TJCS_GRAY = 2; // TurboJPEG's colorspaces: 0 RGB, 1 YCbCr, 2 grey, 3 CMYK, 4 YCCK
const MAX_PIXELS = 1 << 28; // sharp's limitInputPixels here: a larger one goes to sharp, which refuses it

let scratch: Uint8Array | null = null; // this thread's decoded pixels (one image at a time)

/** Whether the markers say the native decoder takes this JPEG for `spec`. */
export function nativeTakes(f: JpegFacts, spec: Pick<DecodeSpec, 'orientation'>): boolean {
  const upright = spec.orientation !== 'exif' || f.orientation === 1;
  return f.precision === 8 && f.frame <= 2 && (f.components === 1 || f.components === 3) && !f.icc && upright;
}

/** Decodes `bytes` into `out` when the native decoder takes it; false: sharp's to decode. */
export function decodeJpegNative(bytes: Uint8Array, spec: DecodeSpec, epoch: number, sample: number, table: Float32Array, out: Uint8Array): boolean {
  const jpeg = jpegAddon().addon;
  const facts = jpeg && jpegFacts(bytes);
  if (!jpeg || !facts || !nativeTakes(facts, spec)) return false;
  const head = jpeg.header(bytes);
  if (!head || head[0] * head[1] > MAX_PIXELS || head[3] > TJCS_GRAY || (spec.channels === 1 && head[3] !== TJCS_GRAY)) return false;
  const [width, height] = head;
  const rng = spec.augment ? augmentRng(spec.seed, epoch, sample) : null;
  const rrc = spec.augment?.randomResizedCrop;
  const draws = spec.augment ? drawAugment(spec.augment, rng!, rrc ? width : 0, rrc ? height : 0) : null;
  const plan = jpegPlan(width, height, spec, draws?.box ?? null);
  if (!likeSharp(plan, width, height)) return false;
  const size = spec.width * spec.height * spec.channels;
  if (scratch?.length !== size) scratch = new Uint8Array(size);
  try {
    jpeg.decode(bytes, scratch, spec.channels, plan.denom, plan.axes, spec.width, spec.height);
  } catch {
    return false;
  }
  placeRow(scratch, spec, draws, table, out);
  return true;
}
