// The real webgpu path (Dawn + tfjs-backend-webgpu, on the machine's adapter: lavapipe where
// there is no GPU) with N = 1, 2, 4 workers sharing the adapter gives the weights of plain
// single-process tfjs on the cpu backend with the same global batches: sgd, adam with uneven
// shards, and BatchNorm against the tower reference. The float32 sums of a GPU kernel run in
// another order than the cpu backend's, so the tolerance is wider than the cpu-vs-cpu tests'.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import {
  assertWeightsClose,
  buildConfig,
  initialWeights,
  referenceTrain,
  silent,
  tempDir,
  towerReferenceTrain,
  writeDataset,
  writeModelModule,
} from '../helpers/train-fixture.ts';
import { needWebgpu, webgpuConfig } from '../helpers/webgpu.ts';

const dir = tempDir('webgpu-parity');
const data = writeDataset(dir, 'train', 42, 'onehot', 11);
const TOL = { rtol: 1e-4, atol: 1e-5 };

test('sgd on webgpu: N = 1, 2, 4 workers match single-process tfjs on the cpu backend', async (t) => {
  if (!(await needWebgpu(t))) return;
  const raw = {
    name: 'sgd',
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: data },
    training: { batchSize: 8, steps: 10, seed: 3 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  };
  const ref = await referenceTrain(buildConfig(dir, raw, 1));
  const init = await initialWeights(buildConfig(dir, raw, 1));
  for (const n of [1, 2, 4]) {
    const r = await train(webgpuConfig(dir, raw, n), silent);
    assert.equal(r.steps, 10);
    assertWeightsClose(t, r.weights, ref.weights, `webgpu sgd N=${n}`, { initial: init, ...TOL });
  }
});

test('adam on webgpu with uneven shards (batch 7 over 2 and 4 workers) matches', async (t) => {
  if (!(await needWebgpu(t))) return;
  const raw = {
    name: 'adam',
    model: { module: writeModelModule(dir, 'l2') },
    loss: 'categoricalCrossentropy',
    data: { train: data },
    training: { batchSize: 7, steps: 10, seed: 5 },
    optimizer: { name: 'adam', learningRate: 0.02 },
  };
  const ref = await referenceTrain(buildConfig(dir, raw, 1));
  const init = await initialWeights(buildConfig(dir, raw, 1));
  for (const n of [2, 4]) {
    const r = await train(webgpuConfig(dir, raw, n), silent);
    assertWeightsClose(t, r.weights, ref.weights, `webgpu adam N=${n}`, { initial: init, ...TOL });
  }
});

test('BatchNorm on webgpu, 2 workers: the tower reference (statistics averaged by shard size)', async (t) => {
  if (!(await needWebgpu(t))) return;
  const raw = {
    name: 'bn',
    model: { module: writeModelModule(dir, 'batchnorm') },
    loss: 'categoricalCrossentropy',
    data: { train: data },
    training: { batchSize: 10, steps: 8, seed: 2 },
    optimizer: { name: 'sgd', learningRate: 0.2 },
  };
  const ref = await towerReferenceTrain(buildConfig(dir, raw, 2), 2);
  const init = await initialWeights(buildConfig(dir, raw, 2));
  const r = await train(webgpuConfig(dir, raw, 2), silent);
  assertWeightsClose(t, r.weights, ref.weights, 'webgpu batchnorm N=2', { initial: init, ...TOL });
});
