// The forward's one exchange (src/worker/batch-norm-sum.ts): each worker sends
// [R, Σx, Σ(x - m)² + (Σx)²/R] about its own mean m, and the summed partials give the mean and
// Σ(x - mean)² of the union of the rows. Checked against a two-pass float64 computation over the
// union written here: shards of unequal sizes (one empty), a channel with a large mean (1e4 over
// a standard deviation of 0.3: the combination cancels only what lies between the shards' means,
// about 1e-16·(mean/σ)² ≈ 1e-7 of the variance here, float32's own rounding; 1e-6 is asserted),
// a constant channel (never below zero).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { momentsOf, momentsPartial } from '../../src/worker/batch-norm-sum.ts';
import { seededRandom } from '../helpers/close.ts';

/** A shard's partial as a worker computes it, in two passes over its rows (C channels). */
function partialOf(rows: number[][], C: number): Float64Array {
  const sums = Array.from({ length: C }, (_, c) => rows.reduce((a, r) => a + r[c]!, 0));
  const squares = sums.map((s, c) => rows.reduce((a, r) => a + (r[c]! - s / rows.length) ** 2, 0));
  return momentsPartial(rows.length, sums, squares);
}

test('moments: the summed partials give the mean and Σ(x - mean)² of the union', () => {
  const rnd = seededRandom(5);
  const C = 3;
  const row = () => [rnd() * 4 - 2, 1e4 + rnd(), 7];
  const shards = [7, 0, 3, 12].map((n) => Array.from({ length: n }, row));
  const totals = shards.map((s) => partialOf(s, C)).reduce((a, p) => a.map((v, i) => v + p[i]!));
  const got = momentsOf(totals, C);
  const all = shards.flat();
  assert.equal(got.rows, all.length);
  for (let c = 0; c < C; c++) {
    const mean = all.reduce((a, r) => a + r[c]!, 0) / all.length;
    const m2 = all.reduce((a, r) => a + (r[c]! - mean) ** 2, 0);
    assert.ok(Math.abs(got.mean[c]! - mean) <= 1e-12 * Math.max(1, Math.abs(mean)), `channel ${c}: mean ${got.mean[c]} vs ${mean}`);
    if (c === 2) assert.equal(got.m2[c], 0, 'a constant channel');
    else assert.ok(Math.abs(got.m2[c]! - m2) <= (c === 1 ? 1e-6 : 1e-12) * m2, `channel ${c}: m2 ${got.m2[c]} vs ${m2}`);
  }
});

test('moments: an empty shard sends zeros', () => {
  assert.deepEqual(Array.from(momentsPartial(0, [0, 0], [0, 0])), [0, 0, 0, 0, 0]);
});
