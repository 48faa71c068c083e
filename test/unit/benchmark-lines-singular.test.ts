// The benchmark's lines say one of a thing in the singular: "1 warm-up step", "1 worker",
// "1 sample", not "1 warm-up steps" (a --warmup 1 run printed that on every count).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countLine, plainLine } from '../../src/benchmark/table.ts';
import { checkWorkerCounts } from '../../src/benchmark/bench-config.ts';
import type { Config } from '../../src/config/types.ts';
import type { BenchmarkOptions } from '../../src/benchmark/options.ts';

test('the lines that start the baseline and each count', () => {
  assert.equal(plainLine(1, 2), 'plain tfjs, 1 process: 1 warm-up step, then 2 measured');
  assert.equal(plainLine(10, 50), 'plain tfjs, 1 process: 10 warm-up steps, then 50 measured');
  assert.equal(countLine(1, 3, 1, 2), 'mgpu-train, 1 worker (global batch 3): 1 warm-up step, then 2 measured');
  assert.equal(countLine(4, 12, 2, 5), 'mgpu-train, 4 workers (global batch 12): 2 warm-up steps, then 5 measured');
});

test('a global batch the data cannot fill, at 1 worker and 1 sample', () => {
  const base = { devices: { backend: 'cpu', simulate: 0, oversubscribe: false } } as unknown as Config;
  const o = { workers: [1], batch: 2, backend: 'cpu', simulate: true, oversubscribe: false } as unknown as BenchmarkOptions;
  const big = { cores: 64, availableBytes: 2 ** 40 };
  assert.throws(
    () => checkWorkerCounts(base, o, { gpus: 0 }, 1, big),
    (err: Error & { hint?: string }) => {
      assert.equal(err.message, '--workers 1: a global batch of 2 (2 x 1 worker) is more than the 1 sample of data.train');
      assert.equal(err.hint, 'lower --batch to 1 or less, or time fewer workers');
      return true;
    },
  );
});
