// The mmap addon maps the slab's pages themselves: a write through one mapping is seen through
// another mapping of the same file, through pread, and a pwrite is seen in the mappings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { loadMmap, mmapUnavailableReason, openSlabAccess, reserveSlab } from '../../src/shared/mapped-memory.ts';
import { nativeSkip } from '../helpers/native.ts';

const mm = loadMmap();
const skip = nativeSkip(mm ? false : `the mmap addon is unavailable: ${mmapUnavailableReason}`);

/** An unlinked file of `size` bytes, like the slab. */
function slabFile(size: number): number {
  const dir = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const file = `${dir}/mgpu-mmap-test-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  fs.unlinkSync(file);
  fs.ftruncateSync(fd, size);
  return fd;
}

test('a write through one mapping is seen through a second mapping, a second descriptor and pread', { skip }, () => {
  const page = mm!.pageSize();
  const fd = slabFile(4 * page);
  const a = new Float32Array(mm!.map(fd, 0, 4 * page));
  const b = new Float32Array(mm!.map(fd, 0, 4 * page));
  const other = fs.openSync(`/proc/self/fd/${fd}`, 'r+');
  const c = new Float32Array(mm!.map(other, 0, 4 * page));
  assert.equal(a.length, page); // 4 pages of float32
  for (let i = 0; i < a.length; i++) a[i] = i * 0.25 - 7;
  assert.deepEqual(b, a);
  assert.deepEqual(c, a);
  const back = new Float32Array(a.length);
  assert.equal(fs.readSync(fd, back, 0, back.byteLength, 0), back.byteLength);
  assert.deepEqual(back, a);
  b[3] = 1234.5; // and the other way round
  assert.equal(a[3], 1234.5);
  fs.closeSync(other);
  fs.closeSync(fd);
});

test('a positional write is seen in the mapping; a mapping at an offset sees its own pages', { skip }, () => {
  const page = mm!.pageSize();
  const fd = slabFile(3 * page);
  const whole = new Uint8Array(mm!.map(fd, 0, 3 * page));
  const third = new Uint8Array(mm!.map(fd, 2 * page, page));
  const data = Uint8Array.from({ length: 100 }, (_, i) => (i * 7 + 1) & 0xff);
  fs.writeSync(fd, data, 0, data.length, 2 * page + 10);
  assert.deepEqual(whole.subarray(2 * page + 10, 2 * page + 110), data);
  assert.deepEqual(third.subarray(10, 110), data);
  third[0] = 42;
  assert.equal(whole[2 * page], 42);
  fs.closeSync(fd);
});

test('a mapping stays valid after its descriptor is closed', { skip }, () => {
  const page = mm!.pageSize();
  const fd = slabFile(page);
  const dup = fs.openSync(`/proc/self/fd/${fd}`, 'r+');
  const m = new Int32Array(mm!.map(dup, 0, page));
  fs.closeSync(dup);
  m[5] = -99;
  const back = new Int32Array(8);
  fs.readSync(fd, back, 0, 32, 0);
  assert.equal(back[5], -99);
  fs.closeSync(fd);
});

test('openSlabAccess maps when it can, and its reads, writes and in-place views agree with positional I/O', { skip }, () => {
  const size = 3 * 4096 + 4096;
  const fd = slabFile(size);
  const mapped = openSlabAccess(fd, size);
  const positional = openSlabAccess(fd, size, { mmap: false });
  assert.equal(mapped.kind, 'mapped');
  assert.equal(mapped.fallbackReason, null);
  assert.equal(positional.kind, 'positional');
  const data = Float32Array.from({ length: 1000 }, (_, i) => Math.sin(i));
  mapped.write(4096, data);
  const back = new Float32Array(1000);
  positional.read(4096, back);
  assert.deepEqual(back, data);
  positional.write(8192, data);
  assert.deepEqual(mapped.float32(8192, 1000), data);
  const view = mapped.float32(4096, 1000)!;
  view[0] = 77; // in place: no copy
  mapped.read(4096, back);
  assert.equal(back[0], 77);
  assert.equal(positional.float32(0, 1), null);
  assert.throws(() => mapped.read(size - 8, new Float32Array(4)), /outside the slab/);
  fs.closeSync(fd);
});

test('many mappings made and dropped are unmapped by the garbage collector', { skip }, async () => {
  const page = mm!.pageSize();
  const fd = slabFile(256 * page);
  const maps = () =>
    fs
      .readFileSync('/proc/self/maps', 'utf8')
      .split('\n')
      .filter((l) => l.includes('mgpu-mmap-test')).length;
  const before = maps();
  for (let i = 0; i < 50; i++) new Uint8Array(mm!.map(fd, 0, 256 * page))[i] = i;
  assert.ok(maps() >= before + 50, 'the mappings exist while referenced or uncollected');
  const { setFlagsFromString } = await import('node:v8');
  const { runInNewContext } = await import('node:vm');
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let round = 0; round < 20 && maps() > before; round++) {
    gc();
    await new Promise((r) => setTimeout(r, 20)); // finalisers run from the event loop
  }
  assert.ok(maps() <= before, `every dropped mapping was unmapped (${maps()} left, ${before} before)`);
  fs.closeSync(fd);
});

test('reserveSlab makes the pages exist up front (no SIGBUS on a full tmpfs later); an impossible size is ENOSPC/EFBIG', { skip }, () => {
  const size = 64 * 4096;
  const fd = slabFile(size);
  assert.equal(fs.fstatSync(fd).blocks, 0, 'a fresh ftruncate is sparse');
  assert.equal(reserveSlab(fd, size), true);
  assert.ok(fs.fstatSync(fd).blocks * 512 >= size, 'every page is allocated');
  assert.equal(fs.fstatSync(fd).size, size, 'the size is unchanged');
  assert.throws(
    () => mm!.allocate(fd, 0, 2 ** 52),
    (e: Error & { code?: string; syscall?: string }) => ['ENOSPC', 'EFBIG'].includes(e.code ?? '') && e.syscall === 'posix_fallocate',
  );
  assert.throws(() => mm!.allocate(fd, 0, 0), /allocate: length must be an integer/);
  fs.closeSync(fd);
});
