// The mnist digits as mnist.ts decodes them (float32 pixels and class bytes, in the global
// order), kept in the cache folder so that a run reads 31 MB back instead of parsing the
// package's 10 JSON files again (about a second of CPU in every run that trains on them).
// The file is named for the package files it was decoded from (their paths, sizes and mtimes)
// and this layout's version: a reinstalled or another package is decoded again. Its size is
// checked on reading; a cache that cannot be read or written is passed over (the digits are
// decoded as before), never trusted in part.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomically } from '../shared/atomic-write.ts';
import { cacheDir } from '../shared/cache-dir.ts';

/** Every digit of the package, decoded. */
export interface Digits {
  pixels: Float32Array; // [10,000, 784] in [0, 1], in the global order
  classes: Uint8Array; // [10,000]
}

const MAGIC = 'MGPUMNS1'; // the layout's version: 8 bytes, then u32 count, u32 pixels per digit, then pixels, then classes
const HEADER = 16;
const COUNT = 10_000;
const PIXELS = 784;
const BYTES = HEADER + COUNT * PIXELS * 4 + COUNT;

/** Where the digits of `files` are kept. */
export function digitsFile(files: readonly string[]): string {
  const h = createHash('sha256').update(MAGIC);
  for (const f of files) {
    const st = fs.statSync(f);
    h.update(`${f}\0${st.size}\0${st.mtimeMs}\0`);
  }
  return path.join(cacheDir(), 'mnist', `digits-${h.digest('hex').slice(0, 16)}.bin`);
}

/** The digits kept for `files`, or null when none are (or the file is not whole). */
export function keptDigits(files: readonly string[]): Digits | null {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(digitsFile(files));
  } catch {
    return null;
  }
  if (bytes.length !== BYTES || bytes.toString('latin1', 0, 8) !== MAGIC || bytes.readUInt32LE(8) !== COUNT || bytes.readUInt32LE(12) !== PIXELS) return null;
  const pixels = new Float32Array(COUNT * PIXELS);
  new Uint8Array(pixels.buffer).set(bytes.subarray(HEADER, HEADER + pixels.byteLength));
  const classes = Uint8Array.from(bytes.subarray(HEADER + pixels.byteLength));
  return { pixels, classes };
}

/** Keeps `digits` for `files` (when the cache folder can be written); returns them. */
export function keepDigits(files: readonly string[], digits: Digits): Digits {
  if (digits.pixels.length !== COUNT * PIXELS || digits.classes.length !== COUNT) return digits;
  const out = Buffer.alloc(BYTES);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(COUNT, 8);
  out.writeUInt32LE(PIXELS, 12);
  out.set(new Uint8Array(digits.pixels.buffer, digits.pixels.byteOffset, digits.pixels.byteLength), HEADER);
  out.set(digits.classes, HEADER + digits.pixels.byteLength);
  try {
    const file = digitsFile(files);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomically(file, out);
  } catch {
    // A cache folder that cannot be written: the next run decodes the digits again.
  }
  return digits;
}
