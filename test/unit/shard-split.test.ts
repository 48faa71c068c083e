import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shardRanges, shardSizes } from '../../src/shared/shard.ts';

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
