// The training loop's input feed asks a pipeline for the rows of the current step and the next
// `prefetch` steps, each once, in step order; a step can be staged ahead only once its rows are
// ready; the rows of earlier steps are released once a later step is ready (never the current
// one's, which a rerun after a recovery stages again). A split without a pipeline waits 0 ms.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import type { RowPipeline } from '../../src/data/columns.ts';
import type { Dataset } from '../../src/data/rows.ts';
import { memoryColumn } from '../../src/data/columns.ts';
import { inputFeed } from '../../src/coordinator/input-feed.ts';
import { ONE_MACHINE } from '../../src/coordinator/machine-rows.ts';

function recording() {
  const log: string[] = [];
  const done = new Set<string>();
  const key = (i: Uint32Array, e: number) => `${e}:${[...i].join(',')}`;
  const p: RowPipeline = {
    prefetch: (i, e) => void log.push(`prefetch ${key(i, e)}`),
    ready: (i, e) => {
      log.push(`ready ${key(i, e)}`);
      done.add(key(i, e));
      return Promise.resolve();
    },
    isReady: (i, e) => done.has(key(i, e)),
    release: (i, e) => void log.push(`release ${key(i, e)}`),
    close: () => Promise.resolve(),
    describe: () => 'test',
  };
  return { p, log };
}

const ds = (pipeline?: RowPipeline): Dataset => ({
  features: memoryColumn({ dtype: 'float32', shape: [6, 1], data: new Float32Array(6) }),
  labels: memoryColumn({ dtype: 'float32', shape: [6, 1], data: new Float32Array(6) }),
  count: 6,
  source: 'test',
  ...(pipeline ? { pipeline } : {}),
});

test('steps are prefetched ahead once, staged ahead only when ready, released after', async () => {
  const plan = new BatchPlan(6, 2, 7, false, { epochs: 2, steps: null }); // 3 steps an epoch, 6 in all
  const { p, log } = recording();
  const feed = inputFeed(ds(p), plan, 2, ONE_MACHINE);
  const b = (s: number) => `${plan.batchAt(s).epoch}:${[...plan.batchAt(s).indices].join(',')}`;
  assert.equal(feed.canStage(0), false);
  await feed.ready(0);
  assert.deepEqual(log.splice(0), [`prefetch ${b(0)}`, `prefetch ${b(1)}`, `prefetch ${b(2)}`, `ready ${b(0)}`]);
  assert.equal(feed.canStage(1), false, 'asked for, not ready');
  await feed.ready(1);
  assert.deepEqual(log.splice(0), [`prefetch ${b(3)}`, `ready ${b(1)}`, `release ${b(0)}`]);
  assert.equal(feed.canStage(1), true);
  await feed.ready(1); // a rerun of step 1 after a recovery
  assert.deepEqual(log.splice(0), [`ready ${b(1)}`]);
  await feed.ready(5);
  assert.deepEqual(log.splice(0), [`prefetch ${b(5)}`, `ready ${b(5)}`, `release ${b(1)}`, `release ${b(2)}`, `release ${b(3)}`]);
  assert.notEqual(b(3), b(0), 'epoch 1 has its own order');
});

test('without a pipeline every step is ready at once', async () => {
  const plan = new BatchPlan(6, 2, 7, false, { epochs: 1, steps: null });
  const feed = inputFeed(ds(), plan, 2, ONE_MACHINE);
  const first = (await feed.ready(0))!;
  assert.equal(first.wait, 0);
  assert.deepEqual(first.indices, plan.batchAt(0).indices);
  assert.equal(feed.canStage(2), true);
});
