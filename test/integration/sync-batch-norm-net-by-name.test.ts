// training.syncBatchNorm on a network by name: mobilenet-v2 (width 0.35, 64x64 images; a
// BatchNormalization after every convolution and depthwise convolution, ReLU6, residual sums) on
// N = 2 simulated GPUs on wasm, one step of 8 images, gives the weights and moving statistics of
// plain single-process tfjs on the whole batch (tfjs's own layer, cpu backend) within 1e-5, where
// per-shard statistics give the tower reference instead (nets-by-name-parity.test.ts).
// Why 64x64 and one step: at 32x32 the last maps are 1x1, a BatchNorm there normalises 8 values,
// and its gradient amplifies float rounding so that even N = 1 on wasm ends 0.1 away from the
// cpu backend after two steps; at 64x64, one step, N = 1 on wasm is 3.1e-6 from it (measured),
// which bounds what N = 2 can be held to here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import type { NdArray } from '../../src/shared/npy.ts';
import { mulberry32 } from '../../src/shared/rng.ts';
import { writeFeatures, writeLabels } from '../helpers/positional-output.ts';
import { assertWeightsClose, buildConfig, initialWeights, referenceTrain, silent, tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('sync-bn-net');
const CLASSES = 3;
const ROW = [64, 64, 3];
const COUNT = 8;

function oneHot(count: number): string {
  const rng = mulberry32(32);
  const y = new Float32Array(count * CLASSES);
  for (let i = 0; i < count; i++) y[i * CLASSES + Math.floor(rng.float() * CLASSES)] = 1;
  return writeLabels(dir, 'labels', { dtype: 'float32', shape: [count, CLASSES], data: y } satisfies NdArray);
}

test('syncBatchNorm: mobilenet-v2 by name, N = 2 on wasm, trains the whole-batch weights and moving statistics', async (t) => {
  const cfg = buildConfig(
    dir,
    {
      name: 'mobilenet-sync',
      model: { net: 'mobilenet-v2', width: 0.35, dropout: 0, classes: CLASSES, inputShape: ROW },
      loss: 'categoricalCrossentropy',
      data: { train: { type: 'npy', features: writeFeatures(dir, 'features', COUNT, ROW, 31).file, labels: oneHot(COUNT) } },
      training: { batchSize: 8, steps: 1, seed: 7, syncBatchNorm: true },
      optimizer: { name: 'momentum', learningRate: 0.01, momentum: 0.9 },
    },
    2,
    'wasm',
  );
  const ref = await referenceTrain(cfg);
  const layers = ref.model.layers.filter((l) => l.getClassName() === 'BatchNormalization').length;
  t.diagnostic(`${layers} BatchNormalization layers`);
  assert.ok(layers > 10, `${layers} BatchNormalization layers`);
  const trainable = ref.model.trainableWeights.reduce((a, w) => a + (w.shape as number[]).reduce((p, d) => p * d, 1), 0);
  const r = await train(cfg, silent);
  assert.equal(r.steps, 1);
  const tol = { rtol: 1e-5, atol: 1e-5 };
  const init = await initialWeights(cfg);
  assertWeightsClose(t, r.weights.subarray(0, trainable), ref.weights.subarray(0, trainable), 'mobilenet-v2 trainable', {
    ...tol,
    initial: init.subarray(0, trainable),
  });
  assertWeightsClose(t, r.weights.subarray(trainable), ref.weights.subarray(trainable), 'mobilenet-v2 moving statistics', {
    ...tol,
    initial: init.subarray(trainable),
  });
  ref.model.dispose();
});
