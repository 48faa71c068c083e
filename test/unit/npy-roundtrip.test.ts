import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { encodeNpy, parseNpy, readNpy, writeNpy, type NdArray } from '../../src/shared/npy.ts';

const SHAPES = [[], [0], [0, 3], [1], [7], [2, 3], [2, 3, 4], [1, 1, 1, 1], [1000, 5]];

function filled(dtype: NdArray['dtype'], shape: number[]): NdArray {
  const n = shape.reduce((a, b) => a * b, 1);
  const values = Array.from({ length: n }, (_, i) => (i * 37) % 256);
  if (dtype === 'float32') return { dtype, shape, data: Float32Array.from(values, (v) => v / 3 - 40) };
  if (dtype === 'int32') return { dtype, shape, data: Int32Array.from(values, (v) => (v - 128) * 1_000_003) };
  return { dtype, shape, data: Uint8Array.from(values) };
}

for (const dtype of ['float32', 'int32', 'uint8'] as const) {
  test(`npy round trip keeps dtype, shape and values: ${dtype}`, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'npy-roundtrip-'));
    try {
      for (const shape of SHAPES) {
        const arr = filled(dtype, shape);
        const file = path.join(dir, `a-${shape.join('x') || 'scalar'}.npy`);
        writeNpy(file, arr);
        const back = readNpy(file);
        assert.deepEqual(back, arr, `shape [${shape}]`);
        assert.equal(back.data.constructor, arr.data.constructor);

        const bytes = encodeNpy(arr);
        const headerLen = bytes[8]! | (bytes[9]! << 8);
        assert.equal((10 + headerLen) % 64, 0, 'data starts on a 64-byte boundary');
        assert.deepEqual(parseNpy(bytes, 'mem.npy'), arr);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('npy encodes a view of a larger buffer without its neighbours', () => {
  const backing = new Float32Array([9, 1, 2, 3, 9]);
  const arr: NdArray = { dtype: 'float32', shape: [3], data: backing.subarray(1, 4) };
  assert.deepEqual(Array.from(parseNpy(encodeNpy(arr), 'view.npy').data), [1, 2, 3]);
});
