// Networks by name train on N = 2 simulated GPUs to the weights of plain single-process tfjs:
// lenet (whole-batch reference) and mobilenet-v2 at width 0.35 on 32x32 images (BatchNorm, so
// the tower reference: each rank normalises its own shard; depthwise convolutions, ReLU6 and
// residual sums). Both sides build the network with the table's builder (the model's
// definition, shared as a model module is shared); what is checked is the distributed training.
// Shards of 4 (a shard of 2 normalises 2 values at the last 1x1 map: NaN by the second step, in
// plain tfjs too). Small inputs, a few steps: resnet18-cifar, the other obvious pick, takes ~30 s a step of 4
// 8x8 images on tfjs's pure-JS cpu backend, too slow for a test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import type { NdArray } from '../../src/shared/npy.ts';
import { mulberry32 } from '../../src/shared/rng.ts';
import { writeFeatures, writeLabels } from '../helpers/positional-output.ts';
import { assertWeightsClose, buildConfig, initialWeights, referenceTrain, silent, tempDir, towerReferenceTrain } from '../helpers/train-fixture.ts';

const dir = tempDir('nets-parity');
const CLASSES = 3;

function oneHot(name: string, count: number, seed: number): string {
  const rng = mulberry32(seed);
  const y = new Float32Array(count * CLASSES);
  for (let i = 0; i < count; i++) y[i * CLASSES + Math.floor(rng.float() * CLASSES)] = 1;
  return writeLabels(dir, name, { dtype: 'float32', shape: [count, CLASSES], data: y } satisfies NdArray);
}

function config(name: string, model: Record<string, unknown>, row: number[], count: number, batchSize: number) {
  const raw = {
    name,
    model: { ...model, classes: CLASSES, inputShape: row },
    loss: 'categoricalCrossentropy',
    data: { train: { type: 'npy', features: writeFeatures(dir, name, count, row, 31).file, labels: oneHot(name, count, 32) } },
    training: { batchSize, epochs: 1, seed: 7 },
    optimizer: { name: 'momentum', learningRate: 0.01, momentum: 0.9 },
  };
  return buildConfig(dir, raw, 2);
}

test('lenet by name, N = 2: the weights of plain tfjs', async (t) => {
  const cfg = config('lenet', { net: 'lenet', weightDecay: 0.01 }, [12, 12, 1], 24, 8);
  const ref = await referenceTrain(cfg);
  const r = await train(cfg, silent);
  assert.equal(r.steps, 3);
  assertWeightsClose(t, r.weights, ref.weights, 'lenet, N=2', { initial: await initialWeights(cfg) });
  ref.model.dispose();
});

test('mobilenet-v2 (width 0.35, 32x32) by name, N = 2: the weights and moving statistics of the tower reference', async (t) => {
  const cfg = config('mobilenet', { net: 'mobilenet-v2', width: 0.35, dropout: 0 }, [32, 32, 3], 16, 8);
  const ref = await towerReferenceTrain(cfg, 2);
  const trainable = ref.model.trainableWeights.reduce((a, w) => a + (w.shape as number[]).reduce((p, d) => p * d, 1), 0);
  const r = await train(cfg, silent);
  assert.equal(r.steps, 2);
  const init = await initialWeights(cfg);
  assertWeightsClose(t, r.weights.subarray(0, trainable), ref.weights.subarray(0, trainable), 'mobilenet-v2 trainable', {
    initial: init.subarray(0, trainable),
  });
  assertWeightsClose(t, r.weights.subarray(trainable), ref.weights.subarray(trainable), 'mobilenet-v2 moving statistics', {
    initial: init.subarray(trainable),
  });
  ref.model.dispose();
});
