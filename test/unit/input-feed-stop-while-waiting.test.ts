// A stop request (a signal, the API's AbortSignal) that comes while a step waits for its rows
// ends the wait: ready() gives no batch (null) and the loop stops as after a step; the request's
// subscription is taken off afterwards. A step whose rows are made reports a wait no longer than
// the call took.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inputFeed } from '../../src/coordinator/input-feed.ts';
import { ONE_MACHINE } from '../../src/coordinator/machine-rows.ts';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { memoryColumn, type RowPipeline } from '../../src/data/columns.ts';
import type { Dataset } from '../../src/data/rows.ts';

function dataset(ready: () => Promise<void>): Dataset {
  const p: RowPipeline = {
    prefetch: () => {},
    ready,
    isReady: () => false,
    release: () => {},
    close: () => Promise.resolve(),
    describe: () => 'test',
  };
  const column = memoryColumn({ dtype: 'float32', shape: [4, 1], data: new Float32Array(4) });
  return { features: column, labels: column, count: 4, source: 'test', pipeline: p };
}

const plan = new BatchPlan(4, 2, 1, false, { epochs: 1, steps: null });

test('a stop request while the rows are awaited: no batch, and the subscription is taken off', async () => {
  let stop: (() => void) | null = null;
  let off = 0;
  const limits = {
    seconds: 60,
    onStop: (fn: () => void) => {
      stop = fn;
      return () => {
        off++;
      };
    },
  };
  const feed = inputFeed(
    dataset(() => new Promise<void>(() => {})),
    plan,
    0,
    ONE_MACHINE,
    undefined,
    limits,
  );
  const waiting = feed.ready(0);
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(stop, 'the wait listens for a stop request');
  (stop as () => void)();
  assert.equal(await waiting, null);
  assert.equal(off, 1);
});

test("the wait of rows made at once is within the call's own time", async () => {
  const feed = inputFeed(
    dataset(() => Promise.resolve()),
    plan,
    0,
    ONE_MACHINE,
    undefined,
    { seconds: 60, onStop: null },
  );
  const t = performance.now();
  const fed = (await feed.ready(1))!;
  const took = performance.now() - t;
  assert.ok(fed.wait >= 0 && fed.wait <= took, `waited ${fed.wait} ms in a call of ${took} ms`);
  assert.deepEqual(fed.indices, plan.batchAt(1).indices);
});
