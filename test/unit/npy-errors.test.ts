import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { DataError } from '../../src/shared/errors.ts';
import { parseNpy, readNpy } from '../../src/shared/npy.ts';

/** An .npy file with the given header dict text and data, framed as numpy frames it. */
function npy(dict: string, data: Uint8Array | number[] = [], version = 1): Uint8Array {
  const lenBytes = version === 1 ? 2 : 4;
  const pad = 64 - ((8 + lenBytes + dict.length + 1) % 64);
  const header = Buffer.from(dict + ' '.repeat(pad) + '\n', version === 3 ? 'utf8' : 'latin1');
  const prefix = Buffer.alloc(8 + lenBytes);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]).copy(prefix);
  if (version === 1) prefix.writeUInt16LE(header.length, 8);
  else prefix.writeUInt32LE(header.length, 8);
  return new Uint8Array(Buffer.concat([prefix, header, Buffer.from(data)]));
}

const dict = (descr: string, shape: string, fortran = 'False') => `{'descr': '${descr}', 'fortran_order': ${fortran}, 'shape': ${shape}, }`;

function rejects(bytes: Uint8Array, pattern: RegExp): void {
  assert.throws(
    () => parseNpy(bytes, 'x.npy'),
    (err: unknown) => {
      assert.ok(err instanceof DataError, `expected a DataError, got ${String(err)}`);
      assert.equal(err.code, 'E_DATA');
      assert.equal(err.exitCode, 2);
      assert.match(err.message, /^x\.npy: /);
      assert.match(err.message, pattern);
      assert.ok(err.hint, 'has a hint');
      return true;
    },
  );
}

const int64 = (...values: bigint[]) => new Uint8Array(BigInt64Array.from(values).buffer);

test('npy malformations are DataErrors naming the file, the defect and the expectation', () => {
  const valid = npy(dict('<f4', '(2, 3)'), new Uint8Array(24));
  assert.deepEqual(parseNpy(valid, 'x.npy').shape, [2, 3]);

  // data too short / too long for the shape
  rejects(npy(dict('<f4', '(100, 784)'), new Uint8Array(4000)), /data holds 4000 bytes but shape \[100, 784\] float32 needs 313600 \(file truncated\?\)/);
  rejects(valid.subarray(0, valid.length - 1), /data holds 23 bytes but shape \[2, 3\] float32 needs 24/);
  rejects(npy(dict('<f4', '(2, 3)'), new Uint8Array(28)), /data holds 28 bytes but shape \[2, 3\] float32 needs 24 \(extra bytes/);

  // preamble and header
  rejects(new Uint8Array(0), /shorter than the 8-byte .npy preamble/);
  rejects(valid.subarray(0, 9), /too short to hold the header length/);
  rejects(valid.subarray(0, 50), /header truncated: it declares 118 bytes but only 40 follow/);
  rejects(Uint8Array.from(Buffer.from('PK\x03\x04 this is a zip')), /not an \.npy file: it does not start with the magic bytes/);
  rejects(Uint8Array.from([...valid.subarray(0, 6), 4, 0, ...valid.subarray(8)]), /version 4\.0 is not supported \(expected 1\.0, 2\.0 or 3\.0\)/);
  rejects(npy('[1, 2, 3]'), /header is not a Python dict literal/);
  rejects(npy("{'descr': '<f4', 'fortran_order': False"), /header is not a Python dict literal/);
  rejects(npy("{'descr': '<f4', 'shape': (2,), }", new Uint8Array(8)), /'fortran_order' is missing/);
  rejects(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': True}", new Uint8Array(8)), /unexpected key 'extra'/);

  // layout and dtype
  rejects(npy(dict('<f4', '(2, 3)', 'True'), new Uint8Array(24)), /shape \[2, 3\] is stored in Fortran \(column-major\) order \(expected C order\)/);
  rejects(npy(dict('>f4', '(2, 3)'), new Uint8Array(24)), /dtype '>f4' is big-endian \(expected little-endian '<f4'\)/);
  rejects(npy(dict('>i8', '(1,)'), new Uint8Array(8)), /big-endian/);
  rejects(npy(dict('<c8', '(1,)'), new Uint8Array(8)), /unsupported dtype '<c8' \(expected one of '<f4', '<i4', '\|u1'/);
  rejects(npy(dict('<U3', '(1,)'), new Uint8Array(12)), /unsupported dtype '<U3'/);
  rejects(npy(dict('|O', '(1,)'), new Uint8Array(8)), /unsupported dtype '\|O'/);
  rejects(
    npy("{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,), }", new Uint8Array(8)),
    /structured \(record\) dtypes are not supported/,
  );

  // integers that do not fit int32
  rejects(npy(dict('<i8', '(3,)'), int64(1n, 2n ** 31n, 3n)), /int64 value 2147483648 at flat index 1 does not fit int32/);
  rejects(npy(dict('<i8', '(2,)'), int64(-(2n ** 31n), -(2n ** 31n) - 1n)), /int64 value -2147483649 at flat index 1 does not fit int32/);
  rejects(npy(dict('<u8', '(1,)'), int64(2n ** 40n)), /uint64 value 1099511627776 at flat index 0 does not fit int32/);
  rejects(npy(dict('<u4', '(1,)'), new Uint8Array(Uint32Array.of(2 ** 31).buffer)), /uint32 value 2147483648 at flat index 0/);
});

test('npy in-range wide and narrow types convert; versions 2.0 and 3.0 read', () => {
  const i8 = parseNpy(npy(dict('<i8', '(4,)'), int64(0n, -1n, 2n ** 31n - 1n, -(2n ** 31n))), 'i8.npy');
  assert.deepEqual(i8, { dtype: 'int32', storedAs: 'int64', shape: [4], data: Int32Array.of(0, -1, 2 ** 31 - 1, -(2 ** 31)) });
  const f8 = parseNpy(npy(dict('<f8', '(2,)'), new Uint8Array(Float64Array.of(0.5, -3).buffer)), 'f8.npy');
  assert.deepEqual(f8, { dtype: 'float32', storedAs: 'float64', shape: [2], data: Float32Array.of(0.5, -3) });
  const i2 = parseNpy(npy(dict('<i2', '(2,)'), new Uint8Array(Int16Array.of(-7, 300).buffer)), 'i2.npy');
  assert.deepEqual(i2, { dtype: 'int32', storedAs: 'int16', shape: [2], data: Int32Array.of(-7, 300) });
  const b1 = parseNpy(npy(dict('|b1', '(2,)'), [1, 0]), 'b1.npy');
  assert.deepEqual(b1, { dtype: 'uint8', storedAs: 'bool', shape: [2], data: Uint8Array.of(1, 0) });
  const f2 = parseNpy(npy(dict('<f2', '(3,)'), new Uint8Array(Uint16Array.of(0x3e00, 0xb400, 0x7bff).buffer)), 'f2.npy');
  assert.deepEqual(Array.from(f2.data), [1.5, -0.25, 65504]);
  for (const version of [2, 3]) {
    const arr = parseNpy(npy(dict('<i4', '(2,)'), new Uint8Array(Int32Array.of(5, -6).buffer), version), `v${version}.npy`);
    assert.deepEqual(Array.from(arr.data), [5, -6]);
  }
});

test('readNpy of a missing file is a DataError naming it', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'npy-errors-'));
  try {
    const missing = path.join(dir, 'nope.npy');
    assert.throws(
      () => readNpy(missing),
      (err: unknown) => err instanceof DataError && err.code === 'E_DATA' && err.message === `${missing}: no such file`,
    );
    assert.throws(
      () => readNpy(dir),
      (err: unknown) => err instanceof DataError && err.message.startsWith(`${dir}: is a directory`),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
