// A data file as a checkpoint records it (data-record.ts): its size, its mtime, and the CRC-32C of
// its first and last 64 KiB (the whole file when it is at most 128 KiB). The size and the CRC say
// whether it is the same data: they follow the bytes, not the file, so a copy of the data (another
// machine of an MPI run, a restore, rsync without -t) is the same, and a rewrite (np.save of new
// rows, even of the same shape) is not. Reading 128 KiB a file keeps a resume's check cheap
// for a split of many large files; what it cannot see is a change confined to the middle of a
// larger file with its size kept (an in-place edit of some rows): the mtime, recorded too, is
// then the only sign, and a resume says so in a note rather than refusing a copy.
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

export function fingerprintFile(file: string, keyPath: string): FileFingerprint {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    throw new DataError(`${keyPath}: cannot read ${file}: ${(err as Error).message}`, 'check that it exists and that this user may read it');
  }
  try {
    const st = fs.fstatSync(fd);
    const whole = st.size <= 2 * FINGERPRINT_END_BYTES;
    const ends = Buffer.alloc(whole ? st.size : 2 * FINGERPRINT_END_BYTES);
    const ended = { file, why: 'it shrank while its fingerprint was read', error: (m: string) => new DataError(`${keyPath}: ${m}`) };
    readFully(fd, ends.subarray(0, whole ? st.size : FINGERPRINT_END_BYTES), 0, ended);
    if (!whole) readFully(fd, ends.subarray(FINGERPRINT_END_BYTES), st.size - FINGERPRINT_END_BYTES, ended);
    return { bytes: st.size, mtimeMs: st.mtimeMs, crc32c: crc32c(ends).toString(16).padStart(8, '0') };
  } finally {
    fs.closeSync(fd);
  }
}
