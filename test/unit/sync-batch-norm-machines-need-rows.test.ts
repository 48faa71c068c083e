// training.syncBatchNorm over several machines needs every machine to have rows in every
// micro-batch of every step (each machine's relay takes part in every allreduce of the
// statistics): the short last batch of an epoch that leaves the last machine's first worker
// without a row, or with fewer rows than micro-batches, is refused with the batch, the machines
// and what to change; dropLast, a batch that divides the data, and one machine are accepted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateConfig } from '../../src/config/validate.ts';
import { checkMicroBatchesFitShards } from '../../src/coordinator/run/train-checks.ts';

const cfg = (training: Record<string, unknown>) =>
  validateConfig(
    {
      model: { net: 'lenet', classes: 10, inputShape: [28, 28, 1] },
      loss: 'categoricalCrossentropy',
      data: { train: { type: 'synthetic', count: 8, shape: [28, 28, 1], classes: 10 } },
      training: { batchSize: 8, steps: 1, syncBatchNorm: true, ...training },
      optimizer: { name: 'sgd', learningRate: 0.1 },
    },
    { configPath: null, cwd: '/' },
  );

test('syncBatchNorm over machines: a short last batch that leaves a machine without rows is refused', () => {
  // 43 samples, batches of 8: the last has 3 rows over 2 + 2 workers: the second machine's first worker (global 2) has 1, its second none.
  assert.doesNotThrow(() => checkMicroBatchesFitShards(cfg({}), [2, 2], { count: 43, batch: 8, dropLast: false }));
  // 41: the last batch has 1 row: machine 1 has none.
  assert.throws(() => checkMicroBatchesFitShards(cfg({}), [2, 2], { count: 41, batch: 8, dropLast: false }), {
    code: 'E_CONFIG',
    message:
      /training\.syncBatchNorm: the short last batch of each epoch \(1 of 41 samples\) over 4 workers on 2 machines leaves the last machine's first worker 0 rows/,
  });
  assert.doesNotThrow(() => checkMicroBatchesFitShards(cfg({}), [2, 2], { count: 41, batch: 8, dropLast: true }));
  assert.doesNotThrow(
    () => checkMicroBatchesFitShards(cfg({}), [4], { count: 41, batch: 8, dropLast: false }),
    'one machine: its relay waits only for workers with rows',
  );
  assert.doesNotThrow(() => checkMicroBatchesFitShards(cfg({ syncBatchNorm: false }), [2, 2], { count: 41, batch: 8, dropLast: false }));
});

test('syncBatchNorm over machines with accumulation: the last machine needs a row in each micro-batch', () => {
  // Batches of 8 over 1 + 1 workers, 2 micro-batches: a last batch of 3 gives machine 1 one row.
  assert.throws(() => checkMicroBatchesFitShards(cfg({ accumulateSteps: 2 }), [1, 1], { count: 19, batch: 8, dropLast: false }), {
    message: /leaves the last machine's first worker 1 row for 2 micro-batches/,
  });
  assert.doesNotThrow(() => checkMicroBatchesFitShards(cfg({ accumulateSteps: 2 }), [1, 1], { count: 20, batch: 8, dropLast: false }));
});
