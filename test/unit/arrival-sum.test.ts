// Gradients are summed early only in rank order: a rank is added when it and every rank before
// it have arrived, and the last rank is always left for the final fused pass.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ArrivalSum } from '../../src/coordinator/engine/reduce/arrival-sum.ts';
import type { ReducePool } from '../../src/coordinator/engine/reduce/reduce-pool.ts';

function fakePool() {
  const calls: Array<[number, boolean]> = [];
  return { calls, pool: { accumulate: async (rank: number, first: boolean) => void calls.push([rank, first]) } as unknown as ReducePool };
}

test('out-of-order arrivals are summed in rank order, the last rank left for the final pass', async () => {
  const { calls, pool } = fakePool();
  const sum = new ArrivalSum(pool, [0, 1, 2, 3]);
  sum.onReply(null, 2);
  sum.onReply(null, 1);
  assert.deepEqual(calls, [], 'rank 0 has not arrived: nothing may be summed');
  sum.onReply(null, 0);
  sum.onReply(null, 3);
  assert.deepEqual(await sum.settle(), { remaining: [3], continuing: true });
  assert.deepEqual(calls, [
    [0, true],
    [1, false],
    [2, false],
  ]);
});

test('a lowest rank arriving last is summed on arrival; one rank alone is left whole for the final pass', async () => {
  const { calls, pool } = fakePool();
  const sum = new ArrivalSum(pool, [1, 4]);
  sum.onReply(null, 4);
  sum.onReply(null, 1);
  assert.deepEqual(await sum.settle(), { remaining: [4], continuing: true });
  assert.deepEqual(calls, [[1, true]]);
  const single = new ArrivalSum(fakePool().pool, [5]);
  single.onReply(null, 5);
  assert.deepEqual(await single.settle(), { remaining: [5], continuing: false });
});
