import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assignShards, rowsPerRank, shardRanges, shardSizes } from '../../src/shared/shard.ts';

test('shard sizes differ by at most one, sum to the batch, larger ones first', () => {
  for (let workers = 1; workers <= 8; workers++) {
    for (let batch = 0; batch <= 40; batch++) {
      const sizes = shardSizes(batch, workers);
      assert.equal(sizes.length, workers);
      assert.equal(
        sizes.reduce((a, b) => a + b, 0),
        batch,
      );
      assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `${batch}/${workers}: ${sizes}`);
      assert.deepEqual(
        [...sizes].sort((a, b) => b - a),
        sizes,
      );
    }
  }
});

test('the examples of the issue', () => {
  assert.deepEqual(shardSizes(15, 2), [8, 7]);
  assert.deepEqual(shardSizes(10, 4), [3, 3, 2, 2]);
  assert.deepEqual(shardSizes(3, 4), [1, 1, 1, 0]);
});

test('ranges tile the batch in rank order', () => {
  assert.deepEqual(shardRanges(10, 4), [
    [0, 3],
    [3, 6],
    [6, 8],
    [8, 10],
  ]);
  assert.deepEqual(shardRanges(2, 3), [
    [0, 1],
    [1, 2],
    [2, 2],
  ]);
});

test('bad arguments are refused', () => {
  assert.throws(() => shardSizes(-1, 2), /batch must be a non-negative integer/);
  assert.throws(() => shardSizes(4, 0), /workers must be a positive integer/);
});

/** Each rank's row count, dealing the batch's rows out one at a time in rank order: the reference. */
function dealt(batch: number, workers: number): number[] {
  const sizes = new Array<number>(workers).fill(0);
  for (let row = 0; row < batch; row++) sizes[row % workers]! += 1;
  return sizes;
}

test("rows per rank is the largest rank's share: what each rank's input slot must hold", () => {
  for (let workers = 1; workers <= 8; workers++) {
    for (let batch = 0; batch <= 40; batch++) assert.equal(rowsPerRank(batch, workers), Math.max(...dealt(batch, workers)), `${batch}/${workers}`);
  }
});

test("a machine's ranks get their part of the batch split over every machine's workers", () => {
  // 3 machines of 2, 3 and 2 workers: the middle one's ranks 0..2 are global workers 2..4.
  const sizes = dealt(10, 7);
  const starts = sizes.map((_, i) => sizes.slice(0, i).reduce((a, b) => a + b, 0));
  assert.deepEqual(
    assignShards(10, [0, 1, 2], 2, 7),
    [0, 1, 2].map((rank) => ({ rank, start: starts[2 + rank]!, end: starts[2 + rank]! + sizes[2 + rank]! })),
  );
  // With fewer rows than workers, the ranks that get none are left out.
  assert.deepEqual(assignShards(3, [0, 1], 2, 4), [{ rank: 0, start: 2, end: 3 }]);
  assert.deepEqual(assignShards(5, [4, 7]), [
    { rank: 4, start: 0, end: 3 },
    { rank: 7, start: 3, end: 5 },
  ]);
});
