// A checkpoint directory is itself a tfjs LayersModel: tf.loadLayersModel loads
// checkpoints/step-<k>/model.json as it is, and what it loads is the model of step k: every
// saved tensor (BatchNorm moving statistics included) and its predictions equal those of the
// single-process reference trained for the same k steps, not the final weights or step 0's.
// (Momentum, not Adam: the Dense bias before BatchNorm has a near-zero gradient, which Adam
// scales up to lr-sized steps of float noise.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Tensor } from '@tensorflow/tfjs';
import { train } from '../../src/coordinator/train.ts';
import { readLayersModel } from '../../src/shared/model-files.ts';
import {
  assertWeightsClose,
  buildConfig,
  flatWeights,
  initialWeights,
  loadData,
  loadTf,
  silent,
  tempDir,
  towerReferenceTrain,
  writeDataset,
  writeModelModule,
} from '../helpers/train-fixture.ts';

test('checkpoints/step-<k> loads with plain tf.loadLayersModel and holds the reference model of step k', async (t) => {
  const dir = tempDir('ckpt-loads');
  const raw = {
    name: 'ckpt',
    model: { module: writeModelModule(dir, 'batchnorm') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 40, 'onehot', 12) },
    training: { batchSize: 8, steps: 12, seed: 2 },
    optimizer: { name: 'momentum', learningRate: 0.1, momentum: 0.9 },
    checkpoint: { every: 6, keep: 5 },
  };
  const cfg = buildConfig(dir, raw, 2);
  const K = 6;
  const tf = await loadTf();
  const x = loadData(tf, cfg.data.train).x;
  // The reference of step K, in model.weights order (the order tf.loadLayersModel gives back).
  let atK: { weights: Float32Array[]; flat: Float32Array; predictions: Float32Array } | null = null;
  const ref = await towerReferenceTrain(cfg, 2, {
    onStep(done, model) {
      if (done !== K) return;
      atK = {
        weights: model.weights.map((w) => Float32Array.from(w.read().dataSync() as Float32Array)),
        flat: flatWeights(model),
        predictions: Float32Array.from((model.predict(x) as Tensor).dataSync() as Float32Array),
      };
    },
  });
  const reference = atK as { weights: Float32Array[]; flat: Float32Array; predictions: Float32Array } | null;
  assert.ok(reference, `the reference did not reach step ${K}`);
  const r = await train(cfg, silent);
  assert.equal(r.steps, 12);
  const stepK = path.join(cfg.runDir, 'checkpoints', `step-${K}`);
  assert.ok(fs.existsSync(path.join(stepK, 'model.json')));

  const loaded = await tf.loadLayersModel({ load: async () => readLayersModel(path.join(stepK, 'model.json')) as never });
  assert.equal(loaded.weights.length, reference.weights.length);
  const initial = await initialWeights(cfg);
  loaded.weights.forEach((w, i) => {
    assertWeightsClose(t, w.read().dataSync() as Float32Array, reference.weights[i]!, `step-${K} weight ${i} ${w.originalName}`);
  });
  // Step K's weights are neither the initial ones nor the final ones: the comparison can tell.
  const loadedFlat = flatWeights(loaded);
  assertWeightsClose(t, loadedFlat, reference.flat, `step-${K} flat weights`, { initial });
  const final = flatWeights(ref.model);
  assert.ok(
    loadedFlat.some((v, i) => Math.abs(v - final[i]!) > 1e-3),
    `the step-${K} checkpoint holds the final weights`,
  );
  assertWeightsClose(t, (loaded.predict(x) as Tensor).dataSync() as Float32Array, reference.predictions, `step-${K} predictions`);
  tf.dispose([x]);
  loaded.dispose();
  ref.model.dispose();
});
