// A checkpoint directory is itself a tfjs LayersModel: tf.loadLayersModel loads
// checkpoints/step-<k>/model.json as it is, and it predicts what the model of that step
// predicts (the mid-run weights, read back from the checkpoint's trainer files, agree).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Tensor } from '@tensorflow/tfjs';
import { readCheckpoint } from '../../src/coordinator/checkpoint.ts';
import type { SignalWatch } from '../../src/coordinator/signals.ts';
import { train } from '../../src/coordinator/train.ts';
import { readLayersModel } from '../../src/shared/model-files.ts';
import { assertClose } from '../helpers/close.ts';
import { buildConfig, buildReferenceModel, loadData, loadTf, setFlatWeights, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

test('checkpoints/step-<k> loads with plain tf.loadLayersModel and predicts like the step-k weights', async () => {
  const dir = tempDir('ckpt-loads');
  const raw = {
    name: 'ckpt', model: { module: writeModelModule(dir, 'batchnorm') }, loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 40, 'onehot', 12) },
    training: { batchSize: 8, steps: 12, seed: 2 }, optimizer: { name: 'adam', learningRate: 0.02 },
    checkpoint: { every: 6, keep: 5 },
  };
  const cfg = buildConfig(dir, raw, 2);
  await train(cfg, silent);
  const step6 = path.join(cfg.runDir, 'checkpoints', 'step-6');
  assert.ok(fs.existsSync(path.join(step6, 'model.json')));

  const tf = await loadTf();
  const artifacts = readLayersModel(path.join(step6, 'model.json'));
  const loaded = await tf.loadLayersModel({ load: async () => artifacts as never });
  const reference = await buildReferenceModel(tf, cfg);
  // The checkpoint's flat weights, read through its own variable list (the reference model was
  // built in this process, where tfjs's layer-name counters differ), set on the reference by position.
  const { variables } = JSON.parse(fs.readFileSync(path.join(step6, 'trainer-state.json'), 'utf8'));
  const ckpt = readCheckpoint(step6, { variables, saveOrder: [], inputShape: [], outputShape: [], topology: null });
  assert.equal(ckpt.state.step, 6);
  setFlatWeights(tf, reference, ckpt.weights);
  const x = loadData(tf, cfg.data.train).x;
  const got = (loaded.predict(x) as Tensor).dataSync();
  const want = (reference.predict(x) as Tensor).dataSync();
  assertClose(got, want, 1e-6, 1e-7, 'predictions of the loaded checkpoint');
});
