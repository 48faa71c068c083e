// What a `predict --input` value is, told by what the file holds (its first bytes) before its
// name: a folder (images below it), an image file, a .npy array, a TFRecord shard or a
// WebDataset tar shard. The name decides only where the bytes say nothing (a TFRecord shard whose
// first record is damaged: its reader then names the damage). Anything else is refused naming
// the kinds predict takes, so that a shard is never read as if it were an array.
import fs from 'node:fs';
import path from 'node:path';
import { MgpuError } from '../shared/errors.ts';
import { maskedCrc32c } from '../shared/tfrecord-frame.ts';

export type InputKind = 'folder' | 'image' | 'npy' | 'tfrecord' | 'webdataset';

/** The kinds predict takes, as its messages list them. */
export const INPUT_KINDS_TAKEN =
  'image files (JPEG, PNG, WebP, GIF, TIFF, AVIF) or folders of them, TFRecord shards (.tfrecord), WebDataset tar shards (.tar) or .npy arrays';

const ascii = (b: Uint8Array, from: number, to: number) => Buffer.from(b.subarray(from, to)).toString('latin1');

/** An image format's signature at the start of a file. */
function isImage(b: Uint8Array): boolean {
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return true; // JPEG
  if (ascii(b, 0, 8) === '\x89PNG\r\n\x1a\n') return true;
  if (ascii(b, 0, 4) === 'GIF8') return true;
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return true;
  if (ascii(b, 0, 4) === 'II*\0' || ascii(b, 0, 4) === 'MM\0*') return true; // TIFF
  return ascii(b, 4, 8) === 'ftyp' && /^(avi[fs]|hei[cfmsx]|mif1|msf1)$/.test(ascii(b, 8, 12)); // AVIF, HEIF
}

/** A first TFRecord frame: a length whose masked CRC-32C follows it. */
function isTfrecord(b: Uint8Array): boolean {
  if (b.length < 12) return false;
  return Buffer.from(b.buffer, b.byteOffset, b.length).readUInt32LE(8) === maskedCrc32c(b.subarray(0, 8));
}

/** A POSIX (ustar) or GNU tar header: "ustar" at byte 257 of the first block. */
const isTar = (b: Uint8Array) => ascii(b, 257, 262) === 'ustar';

/** The first bytes of `file`, up to 512 (a tar header block). */
function head(file: string): Uint8Array {
  const fd = fs.openSync(file, 'r');
  try {
    const b = new Uint8Array(512);
    return b.subarray(0, fs.readSync(fd, b, 0, b.length, 0));
  } finally {
    fs.closeSync(fd);
  }
}

/** What `file` (resolved) is; `value` is the --input value as given, for messages. */
export function inputKindOf(file: string, value: string, what = '--input'): InputKind {
  if (!fs.existsSync(file)) throw new MgpuError('E_USAGE', `${what} ${value}: no such file or folder`);
  if (fs.statSync(file).isDirectory()) return 'folder';
  const b = head(file);
  if (ascii(b, 0, 6) === '\x93NUMPY') return 'npy';
  if (isImage(b)) return 'image';
  if (isTar(b)) return 'webdataset';
  if (isTfrecord(b)) return 'tfrecord';
  const ext = path.extname(file).toLowerCase();
  if (b[0] === 0x1f && b[1] === 0x8b) {
    throw new MgpuError('E_USAGE', `${what} ${value}: a gzip-compressed file; predict reads shards and arrays uncompressed`, {
      hint: `decompress it first (gunzip -k ${value}); predict takes ${INPUT_KINDS_TAKEN}`,
    });
  }
  // The bytes said nothing: a name that says what the file should be sends it to that reader,
  // which names what is wrong in it.
  if (ext === '.npy') return 'npy';
  if (ext === '.tfrecord' || ext === '.tfrecords') return 'tfrecord';
  if (ext === '.tar') return 'webdataset';
  if (/^\.(jpe?g|png|webp|gif|tiff?|avif)$/.test(ext)) return 'image';
  throw new MgpuError(
    'E_USAGE',
    `${what} ${value}: ${b.length === 0 ? 'an empty file' : 'not a kind of file predict reads'} (neither its first bytes nor its name say image, .npy, TFRecord or tar)`,
    { hint: `predict takes ${INPUT_KINDS_TAKEN}` },
  );
}
