// The same claim on the wasm backend: workers computing with @tensorflow/tfjs-backend-wasm on 2
// simulated GPUs end at the weights of single-process training on the cpu backend, up to the
// differences between the two backends' kernels (hence a looser tolerance).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { assertWeightsClose, buildConfig, initialWeights, referenceTrain, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('wasm');
const raw = {
  name: 'wasm',
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 40, 'onehot', 131) },
  training: { batchSize: 8, epochs: 2, seed: 41 },
  optimizer: { name: 'sgd', learningRate: 0.5 },
};

test('wasm backend: sgd on N = 2 matches the single-process cpu reference', async (t) => {
  const cfg = buildConfig(dir, raw, 2, 'wasm');
  assert.equal(cfg.devices.backend, 'wasm');
  const ref = await referenceTrain(cfg);
  const lines: string[] = [];
  const r = await train(cfg, { step() {}, line: (text) => lines.push(text), done() {} });
  // The run header names the backend the workers report: make sure it really is wasm.
  const header = lines.join('\n');
  assert.match(header, /^\s*rank 1: .* -> wasm$/m, `the run header should name the wasm backend:\n${header}`);
  assert.equal(r.steps, ref.steps);
  assertWeightsClose(t, r.weights, ref.weights, 'wasm N=2 vs cpu reference', { rtol: 1e-4, atol: 1e-5, initial: await initialWeights(cfg) });
  ref.model.dispose();
});
