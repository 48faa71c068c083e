// The training loop's batches into the workers' input slots (staged-batches.ts): a step's rows
// are split over this machine's active workers (the larger shards first) and staged into slot
// step % 2 with the step's epoch; staging ahead skips a batch whose rows a pipeline has not made
// yet; a slot matches a step only with the same split (after a worker is retired it does not).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { soloCluster } from '../../src/coordinator/devices/cluster.ts';
import { stagedBatches } from '../../src/coordinator/staged-batches.ts';
import type { Run } from '../../src/coordinator/train-setup.ts';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { memoryColumn, type RowPipeline } from '../../src/data/columns.ts';
import type { Dataset } from '../../src/data/rows.ts';
import type { Shard } from '../../src/shared/shard.ts';

interface Staged {
  indices: number[];
  split: Shard[];
  slot: 0 | 1;
  epoch: number;
}

function run(active: number[], pipeline?: RowPipeline) {
  const staged: Staged[] = [];
  const tags: [string | null, string | null] = [null, null];
  const column = memoryColumn({ dtype: 'float32', shape: [10, 1], data: new Float32Array(10) });
  const ds: Dataset = { features: column, labels: column, count: 10, source: 'test', ...(pipeline ? { pipeline } : {}) };
  const stager = {
    stage(_ds: Dataset, indices: Uint32Array, split: Shard[], slot: 0 | 1, tag: string | null, epoch: number) {
      staged.push({ indices: [...indices], split, slot, epoch });
      tags[slot] = tag;
    },
    holds: (slot: 0 | 1, tag: string) => tags[slot] === tag,
  };
  const r = {
    s: { group: { active }, stager },
    plan: new BatchPlan(10, 5, 9, false, { epochs: 2, steps: null }), // 2 steps an epoch
    trainSet: ds,
    cfg: { data: { prefetch: 0, onBadSample: 'error' }, reliability: { stepTimeout: 30 } },
    cluster: soloCluster(),
    badSamples: { record: () => {} },
    signals: { onRequested: () => () => {} },
    hooks: { onRequested: () => () => {} },
  } as unknown as Run;
  return { staged, r, plan: r.plan };
}

test("a step's rows split over the active workers into slot step % 2, with its epoch; it then matches that slot", () => {
  const { staged, r, plan } = run([0, 1]);
  const b = stagedBatches(r);
  b.stageAhead(3); // epoch 1, slot 1
  const split = [
    { rank: 0, start: 0, end: 3 },
    { rank: 1, start: 3, end: 5 },
  ];
  assert.deepEqual(staged, [{ indices: [...plan.batchAt(3).indices], split, slot: 1, epoch: 1 }]);
  assert.deepEqual(b.shards(5), split);
  assert.equal(b.matches(3, split), true);
  assert.equal(b.matches(2, split), false, 'step 2 is slot 0, which holds nothing');
  assert.equal(b.matches(1, split), false, 'step 1 is slot 1, which holds step 3');
  b.stageAhead(2);
  assert.deepEqual(
    staged.map((s) => [s.slot, s.epoch]),
    [
      [1, 1],
      [0, 1],
    ],
  );
  assert.equal(b.matches(3, split), true, "staging step 2 leaves step 3's slot alone");
});

test('after a worker is retired the split is another, and the staged slot does not match it', () => {
  // 5 rows over workers 0-5: one each to 0-4. With 2 retired: one each to 0, 1, 3, 4, 5, the
  // same rows split as many ways, to other workers.
  const { r } = run([0, 1, 2, 3, 4, 5]);
  const b = stagedBatches(r);
  b.stageAhead(0);
  const before = b.shards(5);
  const { r: after } = run([0, 1, 3, 4, 5]);
  const retired = stagedBatches(after).shards(5);
  assert.deepEqual(
    retired.map((s) => [s.rank, s.start, s.end]),
    [
      [0, 0, 1],
      [1, 1, 2],
      [3, 2, 3],
      [4, 3, 4],
      [5, 4, 5],
    ],
  );
  assert.equal(b.matches(0, before), true);
  assert.equal(b.matches(0, retired), false);
});

for (const by of ['signals', 'hooks'] as const) {
  test(`a stop request from the run's ${by} while the rows are awaited: no batch`, async () => {
    let stop: (() => void) | null = null;
    const p: RowPipeline = {
      prefetch: () => {},
      ready: () => new Promise<void>(() => {}),
      isReady: () => false,
      release: () => {},
      close: () => Promise.resolve(),
      describe: () => 'test',
    };
    const { r } = run([0], p);
    (r as unknown as Record<string, unknown>)[by] = {
      onRequested: (fn: () => void) => {
        stop = fn;
        return () => {};
      },
    };
    const waiting = stagedBatches(r).ready(0);
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(stop, `the wait listens to the run's ${by}`);
    (stop as () => void)();
    assert.equal(await waiting, null);
  });
}

test('rows made by a pipeline: staged ahead only once made', async () => {
  const made = new Set<string>();
  const key = (i: Uint32Array) => [...i].join(',');
  const p: RowPipeline = {
    prefetch: () => {},
    ready: (i) => (made.add(key(i)), Promise.resolve()),
    isReady: (i) => made.has(key(i)),
    release: () => {},
    close: () => Promise.resolve(),
    describe: () => 'test',
  };
  const { staged, r, plan } = run([0], p);
  const b = stagedBatches(r);
  b.stageAhead(1);
  assert.deepEqual(staged, [], 'step 1 was not asked for: nothing to stage');
  const fed = (await b.ready(1))!;
  assert.deepEqual(fed.indices, plan.batchAt(1).indices);
  b.stageAhead(1);
  assert.deepEqual(staged, [{ indices: [...plan.batchAt(1).indices], split: [{ rank: 0, start: 0, end: 5 }], slot: 1, epoch: 0 }]);
});
