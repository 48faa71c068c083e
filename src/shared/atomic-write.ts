// Files written whole or not at all: to a temporary name beside the file, flushed to the disk,
// then renamed over it. A write that fails part way (a full disk, a kill) leaves the previous
// file as it was; a crash after the rename finds the new one whole.
import fs from 'node:fs';
import path from 'node:path';

/** Writes a file and flushes it to the disk, so a crash after the rename finds it whole. */
export function writeDurably(file: string, data: string | Uint8Array): void {
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Replaces `file` whole: written to a temporary name, flushed, renamed over it. */
export function writeFileAtomically(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    writeDurably(tmp, data);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  syncDir(path.dirname(file));
}

export function syncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
  } catch {
    // some filesystems refuse fsync on a directory; the rename itself is still atomic
  }
}
