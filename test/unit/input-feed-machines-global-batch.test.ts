// Over several machines the input feed gives each machine its own workers' rows of every batch
// and the GLOBAL batch B, which each worker divides its loss and gradient sums by (the step's
// `batch`): worker i weighs its n_i rows by n_i / B, and the weights of all the workers of all
// the machines add up to 1, the mean over the whole batch. With data.onBadSample: skip, B is the
// rows every machine kept, added up. The rows each machine reads, and the B, are written out by
// hand here: 7 rows over 2 + 1 workers split 3, 2 | 2.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Cluster } from '../../src/coordinator/devices/cluster.ts';
import type { BadSample } from '../../src/coordinator/machine-rows.ts';
import { stagedBatches, type StagedBatches } from '../../src/coordinator/staged-batches.ts';
import type { Run } from '../../src/coordinator/train-setup.ts';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { memoryColumn, type RowPipeline } from '../../src/data/columns.ts';
import type { Dataset } from '../../src/data/rows.ts';
import { fakeClusters } from '../helpers/fake-cluster.ts';

const COUNT = 14;
const BATCH = 7;
const plan = () => new BatchPlan(COUNT, BATCH, 3, false, { epochs: 1, steps: null }); // 2 steps of 7

/** A pipeline that makes every row at once, except `bad` (samples) with skip; it logs what it was asked for. */
function pipeline(bad: number[] = []) {
  const asked: number[] = [];
  const p: RowPipeline = {
    prefetch: (i) => void asked.push(...i),
    ready: () => Promise.resolve(),
    isReady: () => true,
    failed: (i) => [...i].flatMap((sample, at) => (bad.includes(sample) ? [{ at, message: `sample ${sample} is corrupt` }] : [])),
    release: () => {},
    close: () => Promise.resolve(),
    describe: () => 'test',
  };
  return { p, asked };
}

function dataset(p?: RowPipeline): Dataset {
  const column = memoryColumn({ dtype: 'float32', shape: [COUNT, 1], data: new Float32Array(COUNT) });
  return { features: column, labels: column, count: COUNT, source: 'test', ...(p ? { pipeline: p } : {}) };
}

/** What the training loop of machine `cluster` needs of a run: its workers all active. */
function machineRun(cluster: Cluster, ds: Dataset, onBadSample: 'skip' | 'error', said: BadSample[][]): Run {
  const active = Array.from({ length: cluster.workers[cluster.rank]! }, (_, r) => r);
  return {
    s: { group: { active }, stager: { stage: () => {}, holds: () => false } },
    plan: plan(),
    trainSet: ds,
    cfg: { data: { prefetch: 1, onBadSample }, reliability: { stepTimeout: 30 } },
    cluster,
    badSamples: { record: (_step: number, _epoch: number, bad: BadSample[]) => void said.push(bad) },
    signals: { onRequested: () => () => {} },
    hooks: { onRequested: () => () => {} },
  } as unknown as Run;
}

/** Each machine's rows of `step`, the B it got, and its workers' loss weights n_i / B. */
async function step(machines: StagedBatches[], k: number) {
  const fed = await Promise.all(machines.map((m) => m.ready(k)));
  return fed.map((f, m) => {
    const shards = machines[m]!.shards(f!.indices.length);
    return { rows: [...f!.indices], n: f!.n, weights: shards.map((s) => (s.end - s.start) / f!.n) };
  });
}

for (const made of ['in memory', 'by a pipeline'] as const) {
  test(`2 machines (2 + 1 workers), rows ${made}: each its own part of every batch, each the global B`, async () => {
    const { machines, gathers } = fakeClusters([2, 1]);
    const pipes = machines.map(() => pipeline());
    const runs = machines.map((c, m) => stagedBatches(machineRun(c, dataset(made === 'in memory' ? undefined : pipes[m]!.p), 'error', [])));
    for (let k = 0; k < 2; k++) {
      const batch = [...plan().batchAt(k).indices];
      const [a, b] = await step(runs, k);
      assert.deepEqual(a!.rows, batch.slice(0, 5), `step ${k}: machine 0 reads rows 0-4 of the batch (workers 0 and 1: 3 + 2)`);
      assert.deepEqual(b!.rows, batch.slice(5, 7), `step ${k}: machine 1 reads rows 5-6 (worker 2: 2)`);
      assert.deepEqual([a!.n, b!.n], [7, 7], 'every machine divides by the global batch, not its part');
      assert.deepEqual([a!.weights, b!.weights], [[3 / 7, 2 / 7], [2 / 7]]);
    }
    if (made === 'by a pipeline') {
      const all = [...plan().batchAt(0).indices, ...plan().batchAt(1).indices];
      assert.deepEqual(pipes[0]!.asked, [...all.slice(0, 5), ...all.slice(7, 12)], 'machine 0 asked for its own rows only');
      assert.deepEqual(pipes[1]!.asked, [...all.slice(5, 7), ...all.slice(12, 14)], 'machine 1 asked for its own rows only');
    }
    assert.equal(gathers(), 0, 'without skip no machine leaves a row out: nothing to exchange');
  });
}

test('skip on 2 machines: B is the rows both kept, added up; the weights still sum to 1; both say every bad sample', async () => {
  const { machines, said: exchanges } = fakeClusters([1, 1]);
  const batch = [...plan().batchAt(0).indices]; // 7 rows over 1 + 1 workers: 4 | 3
  const bad = [batch[1]!, batch[2]!, batch[5]!]; // 2 of machine 0's 4, 1 of machine 1's 3
  const said: BadSample[][][] = [[], []];
  const runs = machines.map((c, m) => stagedBatches(machineRun(c, dataset(pipeline(bad).p), 'skip', said[m]!)));
  const [a, b] = await step(runs, 0);
  assert.deepEqual(a!.rows, [batch[0], batch[3]]);
  assert.deepEqual(b!.rows, [batch[4], batch[6]]);
  assert.deepEqual([a!.n, b!.n], [4, 4], '2 kept on each machine: B = 4 on both, not each machine its own 2');
  assert.deepEqual([a!.weights, b!.weights], [[2 / 4], [2 / 4]]);
  const everyBad = bad.map((s) => ({ sample: s, message: `sample ${s} is corrupt` }));
  assert.deepEqual(said, [[everyBad], [everyBad]]);
  assert.deepEqual(
    exchanges(),
    ['step 1: the rows each machine kept', 'step 1: the samples each machine left out'],
    'one exchange of the counts, one of the bad samples, the step 1-based',
  );
});

test('skip on 2 machines, nothing bad: B is the planned batch after one exchange of the counts', async () => {
  const { machines, gathers } = fakeClusters([1, 1]);
  const heard: BadSample[][] = [];
  const runs = machines.map((c) => stagedBatches(machineRun(c, dataset(pipeline().p), 'skip', heard)));
  const [a, b] = await step(runs, 1);
  assert.deepEqual([a!.n, b!.n, a!.rows.length, b!.rows.length], [7, 7, 4, 3]);
  assert.deepEqual(heard, [], 'no bad sample to say');
  assert.equal(gathers(), 1);
});

test('skip with rows in memory: no row can be left out, nothing is exchanged', async () => {
  const { machines, gathers } = fakeClusters([1, 1]);
  const runs = machines.map((c) => stagedBatches(machineRun(c, dataset(), 'skip', [])));
  const [a, b] = await step(runs, 0);
  assert.deepEqual([a!.n, b!.n], [7, 7]);
  assert.equal(gathers(), 0);
});
