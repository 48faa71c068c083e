import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gatherRows, rowBytes } from '../../src/data/row-copy.ts';
import type { NdArray } from '../../src/shared/npy.ts';

const matrix: NdArray = { dtype: 'float32', shape: [6, 3], data: Float32Array.from({ length: 18 }, (_, i) => i) };
const vector: NdArray = { dtype: 'int32', shape: [6], data: Int32Array.of(10, 11, 12, 13, 14, 15) };
const bytesOf: NdArray = { dtype: 'uint8', shape: [6, 2, 2], data: Uint8Array.from({ length: 24 }, (_, i) => i) };

test('rowBytes is the row size in bytes', () => {
  assert.equal(rowBytes(matrix), 12);
  assert.equal(rowBytes(vector), 4);
  assert.equal(rowBytes(bytesOf), 4);
  assert.equal(rowBytes({ dtype: 'float32', shape: [0, 784], data: new Float32Array(0) }), 3136);
  assert.throws(() => rowBytes({ dtype: 'float32', shape: [], data: Float32Array.of(1) }), RangeError);
});

test('gatherRows copies the chosen rows in order, at the offset, and returns the bytes written', () => {
  const indices = [5, 0, 1, 2, 2, 4, 3];
  const slab = new SharedArrayBuffer(8 + indices.length * 12 + 8);
  const out = new Uint8Array(slab);
  assert.equal(gatherRows(matrix, indices, out, 8), indices.length * 12);
  const got = new Float32Array(slab, 8, indices.length * 3);
  assert.deepEqual(
    Array.from(got),
    indices.flatMap((r) => [3 * r, 3 * r + 1, 3 * r + 2]),
  );
  assert.ok(out.subarray(0, 8).every((b) => b === 0) && out.subarray(8 + indices.length * 12).every((b) => b === 0), 'nothing outside the range is touched');

  const labels = new Uint8Array(indices.length * 4);
  gatherRows(vector, Uint32Array.from(indices), labels, 0);
  assert.deepEqual(
    Array.from(new Int32Array(labels.buffer)),
    indices.map((r) => 10 + r),
  );

  const raw = new Uint8Array(8);
  assert.equal(gatherRows(bytesOf, [3, 1], raw, 0), 8);
  assert.deepEqual(Array.from(raw), [12, 13, 14, 15, 4, 5, 6, 7]);
  assert.equal(gatherRows(matrix, [], raw, 8), 0);
});

test('gatherRows rejects out-of-range rows and a too-small output', () => {
  const out = new Uint8Array(48);
  assert.throws(() => gatherRows(matrix, [0, 6], out, 0), /row index 6 is outside \[0, 6\)/);
  assert.throws(() => gatherRows(matrix, [4, 5, 6], out, 0), /row index 6 is outside/);
  assert.throws(() => gatherRows(matrix, [-1], out, 0), /row index -1 is outside/);
  assert.throws(() => gatherRows(matrix, [0, 1, 2, 3], out, 4), /do not fit an output of 48 bytes/);
});
