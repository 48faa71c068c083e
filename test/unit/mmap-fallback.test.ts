// Without the addon the slab still works through positional I/O, and the reason is exposed.
// Runs whether or not the addon is built: MGPU_MMAP=0 turns it off in a child process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { openSlabAccess } from '../../src/shared/mapped-memory.ts';
import { execArgvFor } from '../../src/shared/runtime.ts';

if (process.env.MGPU_MMAP_TEST_FALLBACK_CHILD) {
  const mapped = await import('../../src/shared/mapped-memory.ts');
  const addon = mapped.loadMmap();
  const mmapUnavailableReason = mapped.mmapUnavailableReason; // a live binding: read it after loadMmap()
  const access = openSlabAccess(3, 8192);
  access.write(4096, Float32Array.of(1.25, -2.5));
  process.stdout.write(JSON.stringify({ addon: addon !== null, reason: mmapUnavailableReason, kind: access.kind, fallbackReason: access.fallbackReason }));
  process.exit(0);
}

test('MGPU_MMAP=0 gives null with a reason, and openSlabAccess falls back to positional I/O that works', () => {
  const dir = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const file = `${dir}/mgpu-mmap-fallback-${process.pid}`;
  const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  fs.unlinkSync(file);
  fs.ftruncateSync(fd, 8192);
  const child = spawnSync(process.execPath, [...execArgvFor(fileURLToPath(import.meta.url)), fileURLToPath(import.meta.url)], {
    env: { ...process.env, MGPU_MMAP_TEST_FALLBACK_CHILD: '1', MGPU_MMAP: '0' },
    stdio: ['ignore', 'pipe', 'pipe', fd],
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(JSON.parse(child.stdout), {
    addon: false,
    reason: 'turned off by MGPU_MMAP=0',
    kind: 'positional',
    fallbackReason: 'turned off by MGPU_MMAP=0',
  });
  const back = new Float32Array(2);
  fs.readSync(fd, back, 0, 8, 4096);
  assert.deepEqual([...back], [1.25, -2.5]);
  fs.closeSync(fd);
});

test('positional access reads, writes and has no in-place views', () => {
  const file = `${os.tmpdir()}/mgpu-mmap-fallback-b-${process.pid}`;
  const fd = fs.openSync(file, 'w+');
  fs.unlinkSync(file);
  fs.ftruncateSync(fd, 4096);
  const access = openSlabAccess(fd, 4096, { mmap: false });
  assert.equal(access.kind, 'positional');
  access.write(8, Int32Array.of(7, 8, 9));
  const back = new Int32Array(3);
  access.read(8, back);
  assert.deepEqual([...back], [7, 8, 9]);
  assert.equal(access.bytes(0, 4), null);
  assert.equal(access.float32(0, 1), null);
  fs.closeSync(fd);
});
