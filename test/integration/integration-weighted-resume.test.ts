// Weights are data: a weighted run (class weights and an .npy of sample weights) interrupted at
// a checkpoint and resumed ends bit for bit where the uninterrupted run ends.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { noSignals, type SignalWatch } from '../../src/coordinator/console/signals.ts';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { writeWeights } from '../helpers/weighted-reference.ts';

const dir = tempDir('weighted-resume');
const data = writeDataset(dir, 'train', 30, 'index', 5);
const w = writeWeights(dir, 'train', 30, 3);
const raw = (runDir: string) => ({
  name: 'weighted-resume',
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'sparseCategoricalCrossentropy',
  data: { train: { ...data, weights: w.file } },
  training: { batchSize: 7, steps: 12, seed: 3, classWeights: [1, 0.5, 3] },
  optimizer: { name: 'adam', learningRate: 0.01 },
  checkpoint: { every: 5 },
  runDir,
});

test('a weighted run interrupted at step 5 and resumed is bit-identical to the uninterrupted one', async () => {
  const full = await train(buildConfig(dir, raw(path.join(dir, 'full')), 2), silent);
  let stop = false;
  const signals: SignalWatch = { ...noSignals, requested: () => (stop ? 'SIGINT' : null) };
  const runB = path.join(dir, 'cut');
  const first = await train(
    buildConfig(dir, raw(runB), 2),
    {
      ...silent,
      step: (done: number) => {
        if (done >= 5) stop = true;
      },
    },
    { signals },
  );
  assert.equal(first.steps, 5);
  const resumed = await train(buildConfig(dir, raw(runB), 2), silent, { resume: runB });
  assert.equal(resumed.steps, 12);
  assert.deepEqual(Buffer.from(resumed.weights.buffer), Buffer.from(full.weights.buffer), 'final weights differ');
  assert.deepEqual(fs.readFileSync(path.join(runB, 'final', 'weights.bin')), fs.readFileSync(path.join(dir, 'full', 'final', 'weights.bin')));
});
