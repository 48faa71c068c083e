// A run with a custom loss module (Huber, one loss per output of two: box custom, class built-in),
// stopped at a checkpoint and resumed, ends with the final weights of the run that was never
// interrupted, bit for bit: the resolved config (with the module's path) validates back to the
// same loss, and the module is loaded again by every worker.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { HUBER_ELEMENTS, writeLossModule } from '../helpers/custom-loss.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { writeTwoIoData, writeTwoIoModel } from '../helpers/two-io-model.ts';
import { interruptAfter } from '../helpers/eval-watch-fixture.ts';

const dir = tempDir('resume-custom-loss');
const files = writeTwoIoData(dir, 'train', 40, 51);
const huber = writeLossModule(dir, 'huber.mjs', HUBER_ELEMENTS);
const model = writeTwoIoModel(dir);
const raw = (runDir: string) => ({
  name: 'resume-custom-loss',
  model: { module: model },
  loss: { class: 'sparseCategoricalCrossentropy', box: { module: huber } },
  lossWeights: { box: 3 },
  data: { train: { type: 'npy', ...files } },
  training: { batchSize: 7, steps: 14, seed: 2 },
  optimizer: { name: 'adam', learningRate: 0.02 },
  checkpoint: { every: 4, keep: 2 },
  runDir,
});

test('a custom-loss run interrupted at step 9 and resumed: bit-identical to the uninterrupted run', async () => {
  const full = await train(buildConfig(dir, raw(path.join(dir, 'full')), 2), silent);
  const cut = interruptAfter(9);
  const runB = path.join(dir, 'cut');
  const first = await train(buildConfig(dir, raw(runB), 2), cut.progress, { signals: cut.signals });
  assert.equal(first.interrupted, 'SIGINT');
  assert.equal(first.steps, 9);
  assert.match(fs.readFileSync(path.join(runB, 'config.yaml'), 'utf8'), /box:\s*\n\s*module: .*huber\.mjs/);
  const resumed = await train(buildConfig(dir, raw(runB), 2), silent, { resume: runB });
  assert.equal(resumed.steps, 14);
  assert.deepEqual(Buffer.from(resumed.weights.buffer), Buffer.from(full.weights.buffer), 'final weights differ');
  assert.deepEqual(fs.readFileSync(path.join(runB, 'final', 'weights.bin')), fs.readFileSync(path.join(dir, 'full', 'final', 'weights.bin')));
});
