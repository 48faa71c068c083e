// A read of a real file that ends before the bytes asked for stops with the caller's error, its
// message naming the file and the byte where the file ended (the position in the file, not in
// the buffer); a file long enough fills the buffer with its bytes from the position.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { MgpuError } from '../../src/shared/errors.ts';
import { openSlabAccess } from '../../src/shared/mapped-memory.ts';
import { readFully } from '../../src/shared/read-fully.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'read-fully-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, 'ten.bin');
fs.writeFileSync(
  file,
  Uint8Array.from({ length: 10 }, (_, i) => 100 + i),
);
const ended = { file, why: 'it shrank', error: (m: string) => new RangeError(m) };

test('a file long enough: the buffer holds its bytes from the position', () => {
  const fd = fs.openSync(file, 'r');
  const into = new Uint8Array(6);
  readFully(fd, into, 3, ended);
  fs.closeSync(fd);
  assert.deepEqual([...into], [103, 104, 105, 106, 107, 108]);
});

test('a file shorter than asked: the error names the file and the byte it ended at', () => {
  const fd = fs.openSync(file, 'r');
  const into = new Uint8Array(16);
  assert.throws(
    () => readFully(fd, into, 4, ended),
    (e: unknown) => e instanceof RangeError && e.message === `${file}: the file ended at byte 10 (it shrank)`,
  );
  fs.closeSync(fd);
  assert.deepEqual([...into.subarray(0, 6)], [104, 105, 106, 107, 108, 109], 'what the file had is read');
});

test("the slab's positional read of a slab file cut short: E_INTERNAL naming the slab and the byte", () => {
  const slab = path.join(dir, 'slab');
  fs.writeFileSync(slab, new Uint8Array(8192));
  const fd = fs.openSync(slab, 'r+');
  const access = openSlabAccess(fd, 8192, { mmap: false });
  fs.ftruncateSync(fd, 4096);
  assert.throws(
    () => access.read(4000, new Uint8Array(200)),
    (e: unknown) => e instanceof MgpuError && e.code === 'E_INTERNAL' && e.message === 'the slab: the file ended at byte 4096 (a read past its end)',
  );
  fs.closeSync(fd);
});
