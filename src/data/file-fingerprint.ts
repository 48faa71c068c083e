// A data file as a checkpoint records it (data-record.ts): its size, its mtime, and the CRC-32C of
// its first and last 64 KiB (the whole file when it is at most 128 KiB). The size and the CRC say
// whether it is the same data: they follow the bytes, not the file, so a copy of the data (another
// machine of an MPI run, a restore, rsync without -t) is the same, and a rewrite (np.save of new
// rows, even of the same shape) is not. Reading 128 KiB a file keeps a resume's check cheap
// for a split of many large files; what it cannot see is a change confined to the middle of a
// larger file with its size kept (an in-place edit of some rows): the mtime, recorded too, is
// then the only sign, and a resume says so in a note rather than refusing a copy.
// The same CRC of the ends (endsCrc) binds a shard's record index to the shard it describes
// (src/data/shards/index-file.ts), read from a file here or by Range requests from a URL.
import fs from 'node:fs';
import { crc32c } from '../shared/crc32c.ts';
import { DataError } from '../shared/errors.ts';
import { readFully } from '../shared/read-fully.ts';

/** How much of each end of a file the CRC covers. */
export const FINGERPRINT_END_BYTES = 64 * 1024;

export interface FileFingerprint {
  bytes: number;
  mtimeMs: number;
  crc32c: string; // 8 hex digits, of the first and last FINGERPRINT_END_BYTES
}

/** The byte ranges ([offset, length]) of a file of `size` bytes whose CRC-32C is its fingerprint's: the whole file, or its two ends. */
export function fingerprintRanges(size: number): Array<[number, number]> {
  if (size <= 2 * FINGERPRINT_END_BYTES) return [[0, size]];
  return [
    [0, FINGERPRINT_END_BYTES],
    [size - FINGERPRINT_END_BYTES, FINGERPRINT_END_BYTES],
  ];
}

/** The CRC-32C of the ranges of an open file of `size` bytes (fingerprintRanges), as a number. */
export function endsCrc(fd: number, size: number, ended: { file: string; why: string; error: (m: string) => Error }): number {
  const ranges = fingerprintRanges(size);
  const ends = Buffer.alloc(ranges.reduce((n, [, length]) => n + length, 0));
  let at = 0;
  for (const [offset, length] of ranges) {
    readFully(fd, ends.subarray(at, at + length), offset, ended);
    at += length;
  }
  return crc32c(ends);
}

export function fingerprintFile(file: string, keyPath: string): FileFingerprint {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    throw new DataError(`${keyPath}: cannot read ${file}: ${(err as Error).message}`, 'check that it exists and that this user may read it');
  }
  try {
    const st = fs.fstatSync(fd);
    const ended = { file, why: 'it shrank while its fingerprint was read', error: (m: string) => new DataError(`${keyPath}: ${m}`) };
    return { bytes: st.size, mtimeMs: st.mtimeMs, crc32c: endsCrc(fd, st.size, ended).toString(16).padStart(8, '0') };
  } finally {
    fs.closeSync(fd);
  }
}
