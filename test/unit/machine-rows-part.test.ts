// machineRows: a machine's part of a batch is the rows of its workers (consecutive global ranks,
// split as shard.ts splits a batch), written out by hand here; the parts cover the batch once;
// with data.onBadSample: skip the machines add up what they kept and rank 0 gets every
// machine's bad samples in machine order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Cluster } from '../../src/coordinator/devices/cluster.ts';
import { machineRows, ONE_MACHINE } from '../../src/coordinator/machine-rows.ts';

/** Machine `rank` of a cluster whose machines have `workers`; gather answers with `others` (every machine's bytes, this one's in place). */
function fakeCluster(rank: number, workers: number[], gathered: (mine: Uint8Array, call: number) => Uint8Array[] = (b) => [b]): Cluster {
  let calls = 0;
  return {
    rank,
    size: workers.length,
    hosts: workers.map((_, i) => `node-${i}`),
    workers,
    offset: workers.slice(0, rank).reduce((a, b) => a + b, 0),
    gather: async (bytes: Uint8Array) => gathered(bytes, calls++),
  } as unknown as Cluster;
}

test("each machine's part is its workers' rows: 7 rows over 2 + 1 workers, 2 rows over 1 + 2, 1 over 2 + 2", () => {
  assert.deepEqual(machineRows(fakeCluster(0, [2, 1]), false).part(7), [0, 5]); // shards 3, 2 | 2
  assert.deepEqual(machineRows(fakeCluster(1, [2, 1]), false).part(7), [5, 7]);
  assert.deepEqual(machineRows(fakeCluster(0, [1, 2]), false).part(2), [0, 1]); // shards 1 | 1, 0
  assert.deepEqual(machineRows(fakeCluster(1, [1, 2]), false).part(2), [1, 2]);
  assert.deepEqual(machineRows(fakeCluster(1, [2, 2]), false).part(1), [1, 1]); // shards 1, 0 | 0, 0: nothing
  for (let batch = 0; batch <= 9; batch++) {
    const parts = [0, 1, 2].map((m) => machineRows(fakeCluster(m, [1, 3, 2]), false).part(batch));
    assert.equal(parts[0]![0], 0);
    assert.equal(parts[2]![1], batch, `batch ${batch}: the parts end at the batch's end`);
    for (let m = 1; m < 3; m++) assert.equal(parts[m]![0], parts[m - 1]![1], `batch ${batch}: machine ${m} starts where ${m - 1} ends`);
  }
});

test('one machine: the whole batch, and the global batch is what it kept', async () => {
  assert.deepEqual(ONE_MACHINE.part(9), [0, 9]);
  assert.deepEqual(await ONE_MACHINE.agree(0, 9, 8, [{ sample: 4, message: 'bad' }]), { n: 8, bad: [{ sample: 4, message: 'bad' }] });
  assert.strictEqual(machineRows(fakeCluster(0, [3]), true), ONE_MACHINE);
});

test("skip on 2 machines: the kept counts are summed and every bad sample is said, machine 0's first", async () => {
  const theirs = [{ sample: 17, message: 'record 17 is corrupt' }];
  const theirText = new TextEncoder().encode(JSON.stringify(theirs));
  // Machine 1 kept 3 rows and has one bad sample; machine 0 (this one) kept 4 and has one too.
  const c = fakeCluster(0, [1, 1], (mine, call) => {
    if (call === 0) return [mine, new Uint8Array(new Int32Array([3, theirText.length]).buffer)];
    const padded = new Uint8Array(mine.length);
    padded.set(theirText.subarray(0, mine.length));
    return [mine, padded];
  });
  const mine = [{ sample: 2, message: 'record 2 is corrupt, and its message is the longer one' }];
  const got = await machineRows(c, true).agree(4, 8, 4, mine);
  assert.deepEqual(got, { n: 7, bad: [...mine, ...theirs] });
});

test('skip on 2 machines, bad samples on one of them only: its samples, none made up for the other', async () => {
  // This machine (1) has none; machine 0 kept 2 and has one.
  const theirs = [{ sample: 9, message: 'record 9 is corrupt' }];
  const theirText = new TextEncoder().encode(JSON.stringify(theirs));
  const c = fakeCluster(1, [1, 1], (mine, call) => (call === 0 ? [new Uint8Array(new Int32Array([2, theirText.length]).buffer), mine] : [theirText, mine]));
  assert.deepEqual(await machineRows(c, true).agree(0, 6, 3, []), { n: 5, bad: theirs });
});

test('skip on 2 machines with nothing left out: one exchange of the counts, none of samples', async () => {
  let calls = 0;
  const c = fakeCluster(1, [1, 1], (mine) => {
    calls++;
    return [new Uint8Array(new Int32Array([4, 0]).buffer), mine];
  });
  assert.deepEqual(await machineRows(c, true).agree(0, 8, 4, []), { n: 8, bad: [] });
  assert.equal(calls, 1);
});

test('without skip the planned batch is the global one, and nothing is exchanged', async () => {
  const c = fakeCluster(1, [1, 1], () => assert.fail('no exchange without skip'));
  assert.deepEqual(await machineRows(c, false).agree(0, 8, 4, []), { n: 8, bad: [] });
  await assert.rejects(machineRows(c, false).agree(4, 8, 3, [{ sample: 1, message: 'x' }]), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'E_INTERNAL');
    assert.match(err.message, /^step 5: 1 samples left out on a run that cannot leave any out/);
    return true;
  });
});
