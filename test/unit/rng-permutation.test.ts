import assert from 'node:assert/strict';
import { test } from 'node:test';
import { epochPermutation } from '../../src/shared/rng.ts';

function isPermutation(p: Uint32Array, n: number): boolean {
  if (p.length !== n) return false;
  const seen = new Uint8Array(n);
  for (const v of p) {
    if (v >= n || seen[v]) return false;
    seen[v] = 1;
  }
  return true;
}

test('epochPermutation is a permutation of 0..n-1', () => {
  for (const n of [0, 1, 2, 3, 10, 1000, 60_001]) assert.ok(isPermutation(epochPermutation(7, 2, n), n), `n=${n}`);
});

test('epochPermutation depends only on (seed, epoch, n), so any epoch can be recomputed alone', () => {
  const later = epochPermutation(5, 9, 5000);
  for (let e = 0; e < 9; e++) epochPermutation(5, e, 5000);
  assert.deepEqual(epochPermutation(5, 9, 5000), later);
});

test('epochPermutation differs between epochs and between seeds', () => {
  const seen = new Set<string>();
  for (let e = 0; e < 20; e++) seen.add(epochPermutation(1, e, 1000).join(','));
  for (const seed of [0, 2, -1, 2 ** 32 + 1, 2 ** 40]) seen.add(epochPermutation(seed, 0, 1000).join(','));
  assert.equal(seen.size, 25);
});

test('epochPermutation places each element uniformly', () => {
  const n = 8;
  const epochs = 8000;
  const atFirst = new Array<number>(n).fill(0);
  for (let e = 0; e < epochs; e++) atFirst[epochPermutation(3, e, n)[0]!]!++;
  for (const c of atFirst) assert.ok(Math.abs(c - epochs / n) < 150, `counts ${atFirst}`);
});

// Pinned: a change here changes the data order of every run, and breaks resuming old runs.
test('epochPermutation values are pinned', () => {
  assert.deepEqual(Array.from(epochPermutation(0, 0, 10)), [8, 9, 4, 5, 0, 2, 1, 7, 6, 3]);
  assert.deepEqual(Array.from(epochPermutation(0, 1, 10)), [7, 9, 6, 3, 8, 4, 5, 0, 2, 1]);
  assert.deepEqual(Array.from(epochPermutation(42, 3, 1000).subarray(0, 8)), [254, 569, 840, 174, 145, 501, 894, 238]);
});
