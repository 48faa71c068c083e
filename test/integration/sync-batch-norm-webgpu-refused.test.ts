// training.syncBatchNorm on webgpu (Dawn on the machine's adapter: lavapipe where there is no
// GPU): tfjs reads webgpu tensors only asynchronously in Node, and the statistics are needed in
// the middle of a pass, so the run is refused at its first step with E_CONFIG naming the key,
// why, and the backends that can; it does not train with each worker's own statistics instead.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { needWebgpu, webgpuConfig } from '../helpers/webgpu.ts';

const dir = tempDir('sync-bn-webgpu');

test('syncBatchNorm on webgpu is refused at the first step, saying why and what can', async (t) => {
  if (!(await needWebgpu(t))) return;
  const raw = {
    name: 'sync-bn-webgpu',
    model: { module: writeModelModule(dir, 'batchnorm') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 16, 'onehot', 3) },
    training: { batchSize: 8, steps: 2, seed: 1, syncBatchNorm: true },
    optimizer: { name: 'sgd', learningRate: 0.1 },
  };
  await assert.rejects(train(webgpuConfig(dir, raw, 1), silent), (err: Error & { code?: string; hint?: string }) => {
    assert.equal(err.code, 'E_CONFIG', err.message);
    assert.match(err.message, /training\.syncBatchNorm: the webgpu backend cannot read BatchNorm statistics in the middle of a pass/);
    assert.match(err.hint ?? '', /use the wasm or cpu backend, or tfjs-node/);
    return true;
  });
});
