// The addon refuses what would be wrong or dangerous with a JS error that says why: a bad or
// unsuitable descriptor (with the errno code), an unaligned offset or length, a zero length, a
// range past the end of the file (touching it would SIGBUS), arguments that are not integers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { loadMmap, mmapUnavailableReason, openSlabAccess } from '../../src/shared/mapped-memory.ts';
import { nativeSkip } from '../helpers/native.ts';

const mm = loadMmap();
const skip = nativeSkip(mm ? false : `the mmap addon is unavailable: ${mmapUnavailableReason}`);

type SysError = Error & { code?: string; errno?: number; syscall?: string };

function slabFile(size: number, flags = 'r+'): { fd: number; reopen: (f: string) => number } {
  const dir = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const file = `${dir}/mgpu-mmap-errors-${process.pid}-${Math.random().toString(36).slice(2)}`;
  fs.writeFileSync(file, '', { mode: 0o600 });
  const fd = fs.openSync(file, flags);
  fs.ftruncateSync(fd, size);
  const reopen = (f: string) => fs.openSync(`/proc/self/fd/${fd}`, f);
  fs.unlinkSync(file);
  return { fd, reopen };
}

test('a closed or never-opened descriptor is EBADF, with errno and the syscall', { skip }, () => {
  const { fd } = slabFile(4096);
  fs.closeSync(fd);
  for (const bad of [fd, 1_000_000]) {
    assert.throws(
      () => mm!.map(bad, 0, 4096),
      (e: SysError) =>
        e.code === 'EBADF' && e.errno === -9 && e.syscall === 'fstat' && /Bad file descriptor/.test(e.message) && e.message.includes(`fd ${bad}`),
    );
  }
});

test('an offset that is not page-aligned is refused and the message names the page size', { skip }, () => {
  const page = mm!.pageSize();
  const { fd } = slabFile(4 * page);
  assert.throws(
    () => mm!.map(fd, 100, page),
    (e: Error & { code?: string }) =>
      e instanceof RangeError && e.code === 'ERR_INVALID_ARG_VALUE' && e.message.includes(`offset 100 is not a multiple of the page size (${page})`),
  );
  assert.throws(() => mm!.map(fd, page + 4, page), /nearest aligned offset below is 4096/);
  fs.closeSync(fd);
});

test('a zero or unaligned length is refused', { skip }, () => {
  const page = mm!.pageSize();
  const { fd } = slabFile(4 * page);
  assert.throws(
    () => mm!.map(fd, 0, 0),
    (e: Error) => e instanceof RangeError && /length is 0/.test(e.message),
  );
  assert.throws(
    () => mm!.map(fd, 0, page + 1),
    (e: Error) =>
      e instanceof RangeError &&
      e.message.includes(`length ${page + 1} is not a multiple of the page size`) &&
      e.message.includes(`round it up to ${2 * page}`),
  );
  fs.closeSync(fd);
});

test('a range past the end of the file is refused instead of mapped (it would SIGBUS)', { skip }, () => {
  const page = mm!.pageSize();
  const { fd } = slabFile(2 * page);
  assert.throws(() => mm!.map(fd, 0, 3 * page), /extends past the end of the file \(8192 bytes\).*SIGBUS/);
  assert.throws(() => mm!.map(fd, 2 * page, page), /past the end/);
  fs.ftruncateSync(fd, 2 * page + 1); // the last page is partly in the file: that is allowed
  assert.equal(mm!.map(fd, 2 * page, page).byteLength, page);
  fs.closeSync(fd);
});

test('descriptors that cannot be mapped read-write shared: read-only, a device without mmap, a directory', { skip }, () => {
  const { fd, reopen } = slabFile(4096);
  const ro = reopen('r');
  assert.throws(
    () => mm!.map(ro, 0, 4096),
    (e: SysError) => e.code === 'EACCES' && e.errno === -13 && e.syscall === 'mmap' && /Permission denied/.test(e.message),
  );
  fs.closeSync(ro);
  const devNull = fs.openSync('/dev/null', 'r+');
  assert.throws(
    () => mm!.map(devNull, 0, 4096),
    (e: SysError) => e.code === 'ENODEV' && e.syscall === 'mmap' && /No such device/.test(e.message),
  );
  fs.closeSync(devNull);
  const dir = fs.openSync(os.tmpdir(), 'r');
  assert.throws(
    () => mm!.map(dir, 0, 4096),
    (e: SysError) => /^E[A-Z]+$/.test(e.code ?? '') && e.syscall === 'mmap',
  );
  fs.closeSync(dir);
  fs.closeSync(fd);
});

test('arguments that are not non-negative integers are TypeErrors or RangeErrors', { skip }, () => {
  const { fd } = slabFile(4096);
  // eslint-disable-next-line @typescript-eslint/unbound-method -- a native addon's function, not a method
  const map = mm!.map as (...args: unknown[]) => ArrayBuffer;
  assert.throws(
    () => map(fd, 0),
    (e: Error & { code?: string }) => e instanceof TypeError && e.code === 'ERR_INVALID_ARG_TYPE' && /length must be a number/.test(e.message),
  );
  assert.throws(
    () => map(String(fd), 0, 4096),
    (e: Error & { code?: string }) => e instanceof TypeError && /fd must be a number/.test(e.message),
  );
  assert.throws(
    () => map(fd, -4096, 4096),
    (e: Error & { code?: string }) => e instanceof RangeError && e.code === 'ERR_OUT_OF_RANGE' && /offset must be an integer/.test(e.message),
  );
  assert.throws(() => map(fd, 0, 4096.5), /length must be an integer/);
  assert.throws(() => map(fd, Number.NaN, 4096), /offset must be an integer/);
  assert.throws(() => map(-1, 0, 4096), /fd must be an integer/);
  fs.closeSync(fd);
});

test('openSlabAccess refuses a slab smaller than asked, maps one whose size is not whole pages, and bounds-checks', { skip }, () => {
  const { fd } = slabFile(5000);
  assert.throws(
    () => openSlabAccess(fd, 9000),
    (e: Error & { code?: string }) => e.code === 'E_INTERNAL' && /smaller than the 9000/.test(e.message),
  );
  const access = openSlabAccess(fd, 5000);
  assert.equal(access.kind, 'mapped');
  access.write(4996, new Uint8Array([1, 2, 3, 4]));
  const back = new Uint8Array(4);
  fs.readSync(fd, back, 0, 4, 4996);
  assert.deepEqual([...back], [1, 2, 3, 4]);
  assert.throws(() => access.write(4998, new Uint8Array(4)), /outside the slab \(5000 bytes\)/);
  assert.throws(() => access.float32(4096, 300), /outside the slab/);
  fs.closeSync(fd);
});
