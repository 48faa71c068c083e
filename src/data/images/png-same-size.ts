// A PNG already of the split's size (CIFAR, MNIST), decoded here instead of by sharp: for a small
// image sharp's fixed cost per call (its thread hop, libvips's pipeline, libpng's set-up: about
// 0.3 ms) is most of the work, ten times the inflate and unfilter of a 32x32 image. Only the
// plain case: 8 bits, not interlaced, grey / grey+alpha / RGB / RGBA, no ICC profile, and a
// conversion that drops alpha or repeats grey (never colour to grey). Anything else, and any
// file that does not parse, returns null: sharp decodes it (and names what is wrong).
import zlib from 'node:zlib';

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 }; // colour type -> channels

/** The pixels (height x width x `channels`, uint8), or null to leave the file to sharp. */
export function decodeSameSizePng(b: Uint8Array, width: number, height: number, channels: 1 | 3): Uint8Array | null {
  if (b.length < 33 || SIGNATURE.some((v, i) => b[i] !== v)) return null;
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (dv.getUint32(12) !== 0x49484452 || dv.getUint32(16) !== width || dv.getUint32(20) !== height) return null; // IHDR
  const [depth, colour, interlace] = [b[24]!, b[25]!, b[28]!];
  const src = CHANNELS[colour];
  if (depth !== 8 || interlace !== 0 || src === undefined || (channels === 1 && src > 2)) return null;
  const idat: Uint8Array[] = [];
  let at = 33;
  for (;;) {
    if (at + 12 > b.length) return null; // truncated: sharp says so
    const len = dv.getUint32(at);
    const type = dv.getUint32(at + 4);
    if (at + 12 + len > b.length) return null;
    if (type === 0x49444154)
      idat.push(b.subarray(at + 8, at + 8 + len)); // IDAT
    else if (type === 0x69434350)
      return null; // iCCP: a colour profile, sharp converts by it
    else if (type === 0x49454e44) break; // IEND
    at += 12 + len;
  }
  let raw: Buffer;
  try {
    raw = zlib.inflateSync(Buffer.concat(idat));
  } catch {
    return null;
  }
  const stride = width * src;
  if (raw.length !== height * (stride + 1)) return null;
  const px = unfilter(raw, height, stride, src);
  if (px === null) return null;
  return convert(px, width * height, src, channels);
}

/** The scanlines without their filters (None, Sub, Up, Average, Paeth), or null for a bad filter byte. */
function unfilter(raw: Uint8Array, height: number, stride: number, bpp: number): Uint8Array | null {
  const out = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const o = y * stride;
    const up = (x: number) => (y > 0 ? out[o - stride + x]! : 0);
    const left = (x: number) => (x >= bpp ? out[o + x - bpp]! : 0);
    if (f > 4) return null;
    for (let x = 0; x < stride; x++) {
      const v = line[x]!;
      if (f === 0) out[o + x] = v;
      else if (f === 1) out[o + x] = v + left(x);
      else if (f === 2) out[o + x] = v + up(x);
      else if (f === 3) out[o + x] = v + ((left(x) + up(x)) >> 1);
      else out[o + x] = v + paeth(left(x), up(x), x >= bpp && y > 0 ? out[o - stride + x - bpp]! : 0);
    }
  }
  return out;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** grey / grey+alpha / RGB / RGBA to 1 or 3 channels: alpha dropped, grey repeated. */
function convert(px: Uint8Array, n: number, src: number, channels: 1 | 3): Uint8Array {
  if (src === channels) return px;
  const out = new Uint8Array(n * channels);
  const grey = src <= 2;
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < channels; k++) out[i * channels + k] = px[i * src + (grey ? 0 : k)]!;
  }
  return out;
}
