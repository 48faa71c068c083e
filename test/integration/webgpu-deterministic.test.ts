// Two webgpu runs with the same seed and the same number of workers give the same weights,
// bit for bit: the GPU kernels of one adapter are deterministic, and the coordinator sums the
// gradients in rank order over fixed slices.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { needWebgpu, webgpuConfig } from '../helpers/webgpu.ts';

const dir = tempDir('webgpu-determinism');
const raw = (run: string) => ({
  name: run,
  model: { module: writeModelModule(dir, 'batchnorm') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 40, 'onehot', 4) },
  training: { batchSize: 9, steps: 12, seed: 8 },
  optimizer: { name: 'adam', learningRate: 0.01 },
});

test('webgpu, 2 workers: two runs with the same seed are byte-identical', async (t) => {
  if (!(await needWebgpu(t))) return;
  const a = await train(webgpuConfig(dir, raw('a'), 2), silent);
  const b = await train(webgpuConfig(dir, raw('b'), 2), silent);
  assert.ok(Buffer.from(a.weights.buffer).equals(Buffer.from(b.weights.buffer)), 'the weights differ between reruns');
  assert.ok(Object.is(a.finalLoss, b.finalLoss), `final loss ${a.finalLoss} vs ${b.finalLoss}`);
});
