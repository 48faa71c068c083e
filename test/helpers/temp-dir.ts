// A fresh temp directory for a test file, removed when its process exits (each test file runs in
// a process of its own), whether its tests passed or not; MGPU_KEEP_TMP=1 keeps them to look at.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made: string[] = [];

/** A new directory under the system's temp folder, named mgpu-it-<tag>-XXXXXX. */
export function tempDir(tag: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mgpu-it-${tag}-`));
  made.push(dir);
  return dir;
}

process.on('exit', () => {
  if (process.env.MGPU_KEEP_TMP) return;
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});
