// data.onBadSample: skip on one machine: a step's rows that could not be made are left out of
// what it trains on, the global batch is the rows kept, and they are said once (the step 1-based,
// as its train line says it, with the epoch) however often the step is asked for again (a rerun
// after a recovery); a batch with none left is a DataError naming the step and the first bad
// sample. A pipeline that cannot fail rows (no failed()) never says any.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inputFeed } from '../../src/coordinator/input-feed.ts';
import type { BadSample } from '../../src/coordinator/machine-rows.ts';
import { ONE_MACHINE } from '../../src/coordinator/machine-rows.ts';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { memoryColumn, type RowPipeline } from '../../src/data/columns.ts';
import type { Dataset } from '../../src/data/rows.ts';
import { DataError } from '../../src/shared/errors.ts';

const plan = new BatchPlan(6, 3, 5, false, { epochs: 2, steps: null }); // 2 steps an epoch, 4 in all

function dataset(bad: Set<number> | null): Dataset {
  const p: RowPipeline = {
    prefetch: () => {},
    ready: () => Promise.resolve(),
    isReady: () => true,
    ...(bad ? { failed: (i: Uint32Array) => [...i].flatMap((s, at) => (bad.has(s) ? [{ at, message: `sample ${s} is corrupt` }] : [])) } : {}),
    release: () => {},
    close: () => Promise.resolve(),
    describe: () => 'test',
  };
  const column = memoryColumn({ dtype: 'float32', shape: [6, 1], data: new Float32Array(6) });
  return { features: column, labels: column, count: 6, source: 'test', pipeline: p };
}

test('skip: bad rows left out, B the rows kept, each bad sample said once with its 1-based step and epoch', async () => {
  const batch = [...plan.batchAt(2).indices]; // step 2: epoch 1's first batch
  const said: [number, number, BadSample[]][] = [];
  const feed = inputFeed(dataset(new Set([batch[1]!])), plan, 0, ONE_MACHINE, (step, epoch, bad) => void said.push([step, epoch, bad]));
  for (let k = 0; k < 2; k++) {
    const fed = (await feed.ready(2))!;
    assert.deepEqual([...fed.indices], [batch[0], batch[2]]);
    assert.equal(fed.n, 2);
  }
  assert.deepEqual(said, [[3, 1, [{ sample: batch[1], message: `sample ${batch[1]} is corrupt` }]]]);
  assert.deepEqual([...feed.part(2)], batch, 'what is staged ahead is the planned part, bad rows and all');
});

test('skip: a batch with no row left is a DataError naming the step and the first bad sample', async () => {
  const batch = [...plan.batchAt(1).indices];
  const feed = inputFeed(dataset(new Set(batch)), plan, 0, ONE_MACHINE);
  await assert.rejects(feed.ready(1), (err: unknown) => {
    assert.ok(err instanceof DataError);
    assert.match(err.message, new RegExp(`^step 2: none of its 3 samples could be made \\(the first: sample ${batch[0]} is corrupt\\)$`));
    assert.match(err.hint ?? '', /onBadSample: skip leaves out a bad sample, not a whole batch/);
    return true;
  });
});

test('a pipeline that cannot fail rows: every row trained on, nothing said', async () => {
  const said: BadSample[][] = [];
  const feed = inputFeed(dataset(null), plan, 1, ONE_MACHINE, (_s, _e, bad) => void said.push(bad));
  for (let step = 0; step < plan.totalSteps; step++) {
    const fed = (await feed.ready(step))!;
    assert.deepEqual(fed.indices, plan.batchAt(step).indices);
    assert.equal(fed.n, 3);
  }
  assert.deepEqual(said, []);
});
