// What a JPEG's markers before its first scan say about how it must be decoded, read without
// decoding it: which frame type and precision (the native decoder takes 8-bit Huffman frames,
// baseline, extended or progressive), how many components, whether an ICC profile is embedded
// (sharp converts such pixels to sRGB, the native decoder does not) and the EXIF orientation.
// Whatever this cannot read is left to sharp.

export interface JpegFacts {
  frame: number; // the SOFn marker's n: 0 baseline, 1 extended, 2 progressive, others arithmetic or lossless
  precision: number; // bits per sample
  components: number;
  icc: boolean;
  orientation: number | null; // EXIF orientation 1-8; 1 without EXIF or the tag; null when the EXIF does not read
}

const SOI = 0xd8;
const SOS = 0xda;
const APP1 = 0xe1;
const APP2 = 0xe2;

/** The facts of a JPEG's header, or null when `b` is not a JPEG whose markers read cleanly up to the first scan. */
export function jpegFacts(b: Uint8Array): JpegFacts | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== SOI) return null;
  const facts: Partial<JpegFacts> = { icc: false, orientation: 1 };
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at++; // fill bytes before a marker
      continue;
    }
    const length = (b[at + 2]! << 8) | b[at + 3]!;
    const body = at + 4;
    if (length < 2 || at + 2 + length > b.length) return null;
    if (marker === SOS) return facts.frame === undefined ? null : (facts as JpegFacts);
    if (isFrame(marker) && length >= 8) {
      facts.frame = marker - 0xc0;
      facts.precision = b[body]!;
      facts.components = b[body + 5]!;
    } else if (marker === APP2 && startsWith(b, body, 'ICC_PROFILE\0')) {
      facts.icc = true;
    } else if (marker === APP1 && startsWith(b, body, 'Exif\0\0')) {
      facts.orientation = exifOrientation(b.subarray(body + 6, at + 2 + length));
    }
    at += 2 + length;
  }
  return null;
}

/** SOF0-SOF15 but DHT (c4), JPG (c8) and DAC (cc). */
function isFrame(m: number): boolean {
  return m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;
}

function startsWith(b: Uint8Array, at: number, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (b[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** Tag 0x0112 of IFD0 of a TIFF block (EXIF's): 1 when absent, null when the block or the value does not read. */
export function exifOrientation(t: Uint8Array): number | null {
  if (t.length < 8) return null;
  const little = t[0] === 0x49 && t[1] === 0x49; // 'II'; 'MM' is big-endian
  if (!little && !(t[0] === 0x4d && t[1] === 0x4d)) return null;
  const view = new DataView(t.buffer, t.byteOffset, t.byteLength);
  const ifd = view.getUint32(4, little);
  if (ifd + 2 > t.length) return null;
  const entries = view.getUint16(ifd, little);
  for (let i = 0; i < entries; i++) {
    const e = ifd + 2 + 12 * i;
    if (e + 12 > t.length) return null;
    if (view.getUint16(e, little) === 0x0112) {
      const v = view.getUint16(e + 8, little);
      return view.getUint16(e + 2, little) === 3 && v >= 1 && v <= 8 ? v : null; // type 3: SHORT
    }
  }
  return 1;
}
