// addSquares sums squares per chunk, so cutting the vector into slices at chunk boundaries (as
// the reduce threads do) gives the same sums to the bit; and each sum is the sum of squares.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { floatKernels } from '../../src/shared/float-kernels.ts';
import { seededRandom } from '../helpers/close.ts';

const k = floatKernels();

test(`per-chunk squares do not depend on where the vector is cut (${k.kind} kernels)`, () => {
  const rand = seededRandom(7);
  const n = 5 * 1024 + 3;
  const chunk = 1024;
  const a = Float32Array.from({ length: n }, () => rand() * 2 - 1);
  const whole = new Float64Array(Math.ceil(n / chunk));
  k.addSquares(a, null, chunk, whole);
  const parts: number[] = [];
  for (const [s, e] of [
    [0, 2048],
    [2048, 3072],
    [3072, n],
  ] as const) {
    const sums = new Float64Array(Math.ceil((e - s) / chunk));
    k.addSquares(a.subarray(s, e), null, chunk, sums);
    parts.push(...sums);
  }
  assert.deepEqual(parts, Array.from(whole));
  for (let c = 0; c < whole.length; c++) {
    let plain = 0;
    for (let i = c * chunk; i < Math.min(n, (c + 1) * chunk); i++) plain += a[i]! * a[i]!;
    assert.ok(Math.abs(whole[c]! - plain) <= 1e-12 * plain, `chunk ${c}: ${whole[c]} vs ${plain}`);
  }
});
