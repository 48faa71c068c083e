// pread until done: fs.readSync may give fewer bytes than asked and moves at most 2 GiB - 1 a
// call; it gives 0 once the file has ended, which here is always an error naming the file.
import fs from 'node:fs';

/** The most bytes one fs.readSync or fs.writeSync call moves. */
export const MAX_IO = 0x40000000;

/** What a read that meets the file's end throws: `file` and `why` go into its message. */
export interface FileEnded {
  file: string;
  why: string;
  error: (message: string) => Error;
}

/**
 * Fills `into` from byte `position` of `fd`, at most MAX_IO a call. A file that ends first throws
 * `ended.error('<file>: the file ended at byte <n> (<why>)')`.
 */
export function readFully(fd: number, into: Uint8Array, position: number, ended: FileEnded): void {
  for (let done = 0; done < into.length;) {
    const n = fs.readSync(fd, into, done, Math.min(MAX_IO, into.length - done), position + done);
    if (n === 0) throw ended.error(`${ended.file}: the file ended at byte ${position + done} (${ended.why})`);
    done += n;
  }
}
