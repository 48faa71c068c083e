// A webgpu run stopped at a checkpoint and resumed ends with the weights of the run that was
// never interrupted, bit for bit (adam, so the optimizer's slots must come back exactly too).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { noSignals, type SignalWatch } from '../../src/coordinator/console/signals.ts';
import { train } from '../../src/coordinator/train.ts';
import { silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { needWebgpu, webgpuConfig } from '../helpers/webgpu.ts';

const dir = tempDir('webgpu-resume');
const raw = (runDir: string) => ({
  name: 'resume',
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 30, 'onehot', 6) },
  training: { batchSize: 8, steps: 14, seed: 1 },
  optimizer: { name: 'adam', learningRate: 0.01 },
  checkpoint: { every: 4 },
  runDir,
});

test('webgpu, 2 workers: interrupted after step 6 and resumed, bit-identical to the uninterrupted run', async (t) => {
  if (!(await needWebgpu(t))) return;
  const full = await train(webgpuConfig(dir, raw(path.join(dir, 'full')), 2), silent);
  let stop = false;
  const signals: SignalWatch = { ...noSignals, requested: () => (stop ? 'SIGINT' : null) };
  const cutDir = path.join(dir, 'cut');
  const first = await train(webgpuConfig(dir, raw(cutDir), 2), { ...silent, step: (done: number) => void (stop = done >= 6) }, { signals });
  assert.equal(first.interrupted, 'SIGINT');
  assert.equal(first.steps, 6);
  const resumed = await train(webgpuConfig(dir, raw(cutDir), 2), silent, { resume: cutDir });
  assert.equal(resumed.steps, 14);
  assert.ok(Buffer.from(resumed.weights.buffer).equals(Buffer.from(full.weights.buffer)), 'the resumed run differs from the uninterrupted one');
});
