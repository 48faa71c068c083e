// A step's wait (data_wait_ms) counts the time its rows take to be asked for too: a map-style
// get() that runs in the coordinator's thread (no data.threads) does its synchronous work then,
// and a wait of 0 ms would hide that the step was input-bound.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inputFeed } from '../../src/coordinator/input-feed.ts';
import { ONE_MACHINE } from '../../src/coordinator/machine-rows.ts';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { memoryColumn, type RowPipeline } from '../../src/data/columns.ts';

test("the wait includes the rows' synchronous work done as they are asked for", async () => {
  const done = new Set<string>();
  const key = (i: Uint32Array, e: number) => `${e}:${[...i].join(',')}`;
  const busy = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };
  const p: RowPipeline = {
    prefetch: (i, e) => {
      if (!done.has(key(i, e))) busy(20); // as a synchronous get() would
      done.add(key(i, e));
    },
    ready: () => Promise.resolve(),
    isReady: (i, e) => done.has(key(i, e)),
    release: () => {},
    close: () => Promise.resolve(),
    describe: () => 'test',
  };
  const column = memoryColumn({ dtype: 'float32', shape: [4, 1], data: new Float32Array(4) });
  const feed = inputFeed(
    { features: column, labels: column, count: 4, source: 'test', pipeline: p },
    new BatchPlan(4, 2, 1, false, { epochs: 1, steps: null }),
    0,
    ONE_MACHINE,
  );
  const { wait } = (await feed.ready(0))!;
  assert.ok(wait >= 20, `waited ${wait.toFixed(1)} ms for rows that took 20 ms to make`);
});
