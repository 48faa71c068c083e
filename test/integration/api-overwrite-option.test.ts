// The library API's train() follows the command line on a used run directory: a second run
// into it rejects with E_RUN_EXISTS, `overwrite: true` replaces the earlier run (its later
// checkpoint gone), and `overwrite` with `resume` is a usage error.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { train, type ConfigInput } from '../../src/api.ts';
import { checkpointSteps } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

test('train(): a used run directory is refused, and overwrite: true replaces the run', async () => {
  const dir = tempDir('api-overwrite');
  const config: ConfigInput = {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 16, 'onehot', 2) },
    training: { batchSize: 8, steps: 4 },
    optimizer: { name: 'sgd' },
    checkpoint: { every: 2 },
    devices: { simulate: 1, backend: 'cpu' },
  };
  const runDir = path.join(dir, 'run');
  await train(config, { runDir, print: false });
  assert.deepEqual(checkpointSteps(runDir), [2, 4]);
  await assert.rejects(train(config, { runDir, print: false, set: ['training.steps=2'] }), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'E_RUN_EXISTS', e.message);
    return true;
  });
  await assert.rejects(train(config, { runDir, print: false, overwrite: true, resume: true }), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'E_USAGE', e.message);
    assert.match(e.message, /overwrite and resume exclude each other/);
    return true;
  });
  const r = await train(config, { runDir, print: false, overwrite: true, set: ['training.steps=2'] });
  assert.equal(r.steps, 2);
  assert.deepEqual(checkpointSteps(runDir), [2], "the earlier run's step-4 is still there");
});
