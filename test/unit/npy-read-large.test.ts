// readNpy reads the data in chunks straight into the array it becomes (or converts it a chunk
// at a time), so a file may be larger than the 2 GiB readFileSync stops at: chunked reads give
// the array whole reads give, for a dtype kept as it is and for converted ones (an out-of-range
// int64 is named at its index in the whole file, not in its chunk); a 2 GiB + 64 byte file is
// read whole; one of more than 2^32 values (a typed array's limit) is refused, saying so.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { parseNpy, readNpy } from '../../src/shared/npy.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'npy-large-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** An .npy file of numpy's layout for `descr`, `shape` and the raw little-endian data bytes. */
function writeRaw(name: string, descr: string, shape: number[], data: Uint8Array): string {
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  header += ' '.repeat(64 - ((10 + header.length + 1) % 64)) + '\n';
  const file = path.join(dir, name);
  fs.writeFileSync(
    file,
    Buffer.concat([Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 0xff, header.length >> 8]), Buffer.from(header, 'latin1'), data]),
  );
  return file;
}

test('chunked reads equal whole reads: float32 as it is, float64 and int64 converted', () => {
  const f32 = Float32Array.from({ length: 37 }, (_, i) => i * 0.25 - 3);
  const f64 = Float64Array.from({ length: 37 }, (_, i) => Math.sqrt(i) - 2);
  const i64 = BigInt64Array.from({ length: 37 }, (_, i) => BigInt(i * 1000 - 7000));
  const files = [
    writeRaw('f32.npy', '<f4', [37], new Uint8Array(f32.buffer)),
    writeRaw('f64.npy', '<f8', [37], new Uint8Array(f64.buffer)),
    writeRaw('i64.npy', '<i8', [37], new Uint8Array(i64.buffer)),
  ];
  for (const file of files) {
    const whole = parseNpy(fs.readFileSync(file), file);
    for (const chunkBytes of [1, 7, 8, 24, 1000]) {
      const got = readNpy(file, { chunkBytes });
      assert.deepEqual([got.dtype, got.shape, got.storedAs], [whole.dtype, whole.shape, whole.storedAs], `${file}, chunks of ${chunkBytes}`);
      assert.deepEqual(Array.from(got.data), Array.from(whole.data), `${file}, chunks of ${chunkBytes}`);
    }
  }
  assert.deepEqual(Array.from(readNpy(files[1]!, { chunkBytes: 16 }).data), Array.from(Float32Array.from(f64)));
  assert.deepEqual(Array.from(readNpy(files[2]!, { chunkBytes: 16 }).data), Array.from(i64, Number));
});

test('an int64 out of int32 range is named at its index in the whole file, whatever the chunk', () => {
  const i64 = BigInt64Array.from({ length: 9 }, (_, i) => (i === 6 ? 2n ** 40n : BigInt(i)));
  const file = writeRaw('i64-big.npy', '<i8', [9], new Uint8Array(i64.buffer));
  for (const chunkBytes of [16, 1 << 20]) {
    assert.throws(() => readNpy(file, { chunkBytes }), /int64 value 1099511627776 at flat index 6 does not fit int32/);
  }
});

test('a file over 2 GiB is read whole, its last byte included', () => {
  const count = 2 ** 31 + 64;
  // A sparse file: the header, then 2 GiB + 64 zero bytes but for the last, 7.
  const file = writeRaw('big.npy', '|u1', [count], new Uint8Array(0));
  const at = fs.statSync(file).size;
  fs.truncateSync(file, at + count);
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, Uint8Array.of(7), 0, 1, at + count - 1);
  fs.closeSync(fd);
  const a = readNpy(file);
  assert.equal(a.dtype, 'uint8');
  assert.deepEqual(a.shape, [count]);
  assert.equal(a.data.length, count);
  assert.equal(a.data[count - 1], 7);
  assert.equal(a.data[count - 2], 0);
});

test('more than 2^32 values: E_DATA naming the file and the limit, before anything is allocated', () => {
  const count = 2 ** 32 + 1;
  const file = writeRaw('huge.npy', '|u1', [count], new Uint8Array(0));
  fs.truncateSync(file, fs.statSync(file).size + count);
  assert.throws(
    () => readNpy(file),
    (e: Error & { code?: string; hint?: string }) =>
      e.code === 'E_DATA' &&
      e.message === `${file}: holds ${count} values (shape [${count}]); one array can hold at most 2^32 values in Node.js` &&
      /split it into files of fewer rows/.test(e.hint!),
  );
});
