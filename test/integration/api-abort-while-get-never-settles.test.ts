// The library API's AbortSignal stops a run whose step waits for a map-style get() that never
// settles, as it stops one anywhere else: train() resolves with the stop request, step 1 in a
// checkpoint. Before, the loop looked at the signal only between steps, which such a wait never
// reaches (the deadline, reliability.stepTimeout, is left at its 600 s).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/api.ts';
import { checkpointSteps, lastTrainStep, waitFor } from '../helpers/chaos.ts';
import { writeHangingModule } from '../helpers/hanging-get.ts';
import { tempDir, writeModelModule } from '../helpers/train-fixture.ts';

test('aborting the AbortSignal while a step waits for a get() that never settles: stopped after step 1, checkpoint kept', { timeout: 180_000 }, async () => {
  const dir = tempDir('api-abort-get');
  const { module, marker } = writeHangingModule(dir, 'api', "epoch === 1 && split === 'data.train'");
  const runDir = path.join(dir, 'run');
  const controller = new AbortController();
  const running = train(
    {
      model: { module: writeModelModule(dir, 'mlp') },
      loss: 'sparseCategoricalCrossentropy',
      data: { train: { type: 'module', module }, prefetch: 1 },
      training: { batchSize: 8, epochs: 3, seed: 2 },
      optimizer: { name: 'sgd', learningRate: 0.1 },
      log: { every: 1 },
      devices: { simulate: 1, backend: 'cpu' },
      runDir,
    },
    { signal: controller.signal, print: () => {} },
  );
  // get(5) of epoch 2 is asked for ahead; once step 1's train line is written too, step 2 waits for it.
  await waitFor(() => fs.existsSync(marker) && lastTrainStep(path.join(runDir, 'metrics.jsonl')) === 1, 120_000, 'get(5) of epoch 2 waiting, after step 1');
  controller.abort(new Error('enough'));
  const r = await running;
  assert.deepEqual(r.stopped, { by: 'abort', reason: 'enough' });
  assert.equal(r.steps, 1);
  assert.deepEqual(checkpointSteps(runDir), [1]);
});
