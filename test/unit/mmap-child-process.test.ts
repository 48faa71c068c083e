// A spawned process inherits the slab's descriptor at stdio index 3 (as the workers do), maps it
// itself and writes through its mapping; the parent sees the write through its own mapping and
// through pread. This file is also the child's code (run with MGPU_MMAP_TEST_CHILD set).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadMmap, mmapUnavailableReason, openSlabAccess } from '../../src/shared/mapped-memory.ts';
import { execArgvFor } from '../../src/shared/runtime.ts';
import { nativeSkip } from '../helpers/native.ts';

const FLOATS = 2048;

if (process.env.MGPU_MMAP_TEST_CHILD) {
  // The child: fd 3 is the slab. Check what the parent wrote, then write our own pattern.
  const mm = loadMmap();
  if (!mm) {
    console.error(`child: no mmap addon: ${mmapUnavailableReason}`);
    process.exit(3);
  }
  const bytes = Math.ceil((FLOATS * 4) / mm.pageSize()) * mm.pageSize();
  const f = new Float32Array(mm.map(3, 0, bytes), 0, FLOATS);
  if (f[0] !== 11 || f[FLOATS - 1] !== 22) {
    console.error(`child: the parent's values are not in the mapping: ${f[0]}, ${f[FLOATS - 1]}`);
    process.exit(4);
  }
  for (let i = 0; i < FLOATS; i++) f[i] = i * 1.5 + Number(process.env.MGPU_MMAP_TEST_CHILD);
  const access = openSlabAccess(3, bytes);
  process.stdout.write(JSON.stringify({ kind: access.kind, pid: process.pid }));
  process.exit(0); // exits with the mapping still in place: the kernel unmaps it
}

const mm = loadMmap();
const skip = nativeSkip(mm ? false : `the mmap addon is unavailable: ${mmapUnavailableReason}`);

function slabFile(size: number): number {
  const dir = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const file = `${dir}/mgpu-mmap-child-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  fs.unlinkSync(file);
  fs.ftruncateSync(fd, size);
  return fd;
}

test('a child that inherits the fd at stdio index 3 writes through its own mapping; the parent sees it', { skip }, () => {
  const bytes = Math.ceil((FLOATS * 4) / mm!.pageSize()) * mm!.pageSize();
  const fd = slabFile(bytes);
  const mine = new Float32Array(mm!.map(fd, 0, bytes), 0, FLOATS);
  mine[0] = 11;
  mine[FLOATS - 1] = 22;
  for (const offset of [100, 200]) {
    // twice: a second child maps the same pages again
    const child = spawnSync(process.execPath, [...execArgvFor(fileURLToPath(import.meta.url)), fileURLToPath(import.meta.url)], {
      env: { ...process.env, MGPU_MMAP_TEST_CHILD: String(offset) },
      stdio: ['ignore', 'pipe', 'pipe', fd],
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(child.status, 0, `child exited ${child.status} (${child.signal}): ${child.stderr}`);
    const report = JSON.parse(child.stdout) as { kind: string; pid: number };
    assert.equal(report.kind, 'mapped');
    assert.notEqual(report.pid, process.pid);
    for (let i = 0; i < FLOATS; i++) assert.equal(mine[i], i * 1.5 + offset);
    const back = new Float32Array(FLOATS);
    fs.readSync(fd, back, 0, back.byteLength, 0);
    assert.deepEqual(back, mine);
    mine[0] = 11; // for the next child's check
    mine[FLOATS - 1] = 22;
  }
  fs.closeSync(fd);
});
