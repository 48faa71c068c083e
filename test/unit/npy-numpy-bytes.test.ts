import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeNpy, parseNpy } from '../../src/shared/npy.ts';

// np.save(f, np.arange(6, dtype='<f4').reshape(2, 3)), byte for byte, as numpy >= 1.23 writes
// it: the dict, 20 spaces of room to grow shape[0], padding to a 64-byte boundary, '\n'.
const DICT = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
const MODERN_HEADER = DICT + ' '.repeat(20) + ' '.repeat(38) + '\n'; // 118 bytes
// Older numpy wrote no growth room: 70 bytes of header, 80 before the data.
const OLD_HEADER = DICT + ' '.repeat(10) + '\n';

const DATA = [
  0x00,
  0x00,
  0x00,
  0x00, // 0.0
  0x00,
  0x00,
  0x80,
  0x3f, // 1.0
  0x00,
  0x00,
  0x00,
  0x40, // 2.0
  0x00,
  0x00,
  0x40,
  0x40, // 3.0
  0x00,
  0x00,
  0x80,
  0x40, // 4.0
  0x00,
  0x00,
  0xa0,
  0x40, // 5.0
];

function npyBytes(header: string): Uint8Array {
  const prefix = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, header.length & 0xff, header.length >> 8];
  return Uint8Array.from([...prefix, ...Buffer.from(header, 'latin1'), ...DATA]);
}

test('numpy.save bytes of arange(6).reshape(2, 3) float32 parse to the same array, and encode back identically', () => {
  assert.equal(MODERN_HEADER.length, 118);
  const bytes = npyBytes(MODERN_HEADER);
  assert.equal(bytes.length, 128 + 24);
  const arr = parseNpy(bytes, 'arange.npy');
  assert.equal(arr.dtype, 'float32');
  assert.deepEqual(arr.shape, [2, 3]);
  assert.ok(arr.data instanceof Float32Array);
  assert.deepEqual(Array.from(arr.data), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(encodeNpy(arr), bytes);

  assert.equal(OLD_HEADER.length, 70);
  assert.deepEqual(parseNpy(npyBytes(OLD_HEADER), 'old.npy'), arr);
});
