// The shard-aware order (data.train.order: shards): each epoch a permutation of every row, in
// which at most `openShards` shards are open at any time (a shard is open from its first row in
// the order to its last), drawn from (seed, epoch) alone: the same order again for the same
// pair, another for another epoch or seed; rows of one shard come shuffled, not in file order;
// shards without rows (a hold-out's gaps in the shard numbers) are no trouble.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shardOrder } from '../../src/data/shard-order.ts';

/** 10 shards of unequal sizes (5..14 rows), rows numbered shard by shard. */
const shardOf = Uint32Array.from(Array.from({ length: 10 }, (_, s) => Array<number>(5 + s).fill(s)).flat());

/** The most shards open at once in `order`: started (a row read) and not finished (rows left). */
function mostOpen(order: Uint32Array, of: Uint32Array): number {
  const left = new Map<number, number>();
  for (const s of of) left.set(s, (left.get(s) ?? 0) + 1);
  const open = new Set<number>();
  let most = 0;
  for (const row of order) {
    const s = of[row]!;
    open.add(s);
    most = Math.max(most, open.size);
    left.set(s, left.get(s)! - 1);
    if (left.get(s) === 0) open.delete(s);
  }
  return most;
}

const isPermutation = (p: Uint32Array, n: number) => p.length === n && [...p].sort((a, b) => a - b).every((v, i) => v === i);

for (const k of [1, 2, 3, 10, 50]) {
  test(`openShards ${k}: every row once an epoch, at most ${Math.min(k, 10)} shards open at a time`, () => {
    const order = shardOrder(shardOf, k);
    for (const epoch of [0, 1, 7]) {
      const p = order(42, epoch);
      assert.ok(isPermutation(p, shardOf.length), `epoch ${epoch}: a permutation of the ${shardOf.length} rows`);
      assert.ok(mostOpen(p, shardOf) <= k, `epoch ${epoch}: ${mostOpen(p, shardOf)} shards open at once with openShards ${k}`);
    }
  });
}

test('the same (seed, epoch) gives the same order; another epoch or seed another, the shards in another order', () => {
  const order = shardOrder(shardOf, 2);
  assert.deepEqual(order(3, 5), shardOrder(shardOf, 2)(3, 5), 'recomputed alone, as a resumed run does');
  const one = shardOrder(shardOf, 1); // one shard at a time: the shards' order is plain to see
  const shardsIn = (p: Uint32Array) => [...new Set(Array.from(p, (r) => shardOf[r]!))];
  assert.notDeepEqual(shardsIn(one(3, 5)), shardsIn(one(3, 6)), 'another epoch: the shards in another order');
  assert.notDeepEqual(shardsIn(one(3, 5)), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'the shards shuffled, not in file order');
  assert.notDeepEqual(order(3, 5), order(4, 5), 'another seed: another order');
});

test("a shard's rows come shuffled, and all of one shard's rows before a third shard opens (openShards 1: one shard at a time)", () => {
  const p = shardOrder(shardOf, 1)(0, 0);
  const runs = Array.from(p, (r) => shardOf[r]!).filter((s, i, a) => i === 0 || a[i - 1] !== s);
  assert.equal(runs.length, 10, 'one run of rows per shard');
  const rowsOf9 = Array.from(p).filter((r) => shardOf[r] === 9);
  assert.notDeepEqual(
    rowsOf9,
    [...rowsOf9].sort((a, b) => a - b),
    'not in file order',
  );
});

test('shard numbers with gaps (a hold-out kept no row of some shards)', () => {
  const held = Uint32Array.from([5, 5, 2, 9, 2, 5, 9, 9, 0]);
  const p = shardOrder(held, 2)(1, 0);
  assert.ok(isPermutation(p, held.length));
  assert.ok(mostOpen(p, held) <= 2);
});

test('openShards must be a positive integer', () => {
  assert.throws(() => shardOrder(shardOf, 0), RangeError);
});
