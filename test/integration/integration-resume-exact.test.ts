// A run stopped at a checkpoint and resumed ends with the same final weights and EMA, bit for
// bit, as the run that was never interrupted (adam, a cosine schedule with warmup, EMA).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { interruptAfter } from '../helpers/eval-watch-fixture.ts';

const dir = tempDir('resume');
const raw = (runDir: string, kind: 'batchnorm' | 'mlp' = 'batchnorm') => ({
  name: 'resume',
  model: { module: writeModelModule(dir, kind) },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 44, 'onehot', 5) },
  training: { batchSize: 8, steps: 24, seed: 3, ema: 0.9 },
  optimizer: { name: 'adam', learningRate: 0.01 },
  schedule: { name: 'cosine', decaySteps: 20, warmupSteps: 4, alpha: 0.1 },
  checkpoint: { every: 5, keep: 2 },
  runDir,
});

test('interrupted at step 13 and resumed on the same number of workers: bit-identical', async () => {
  const full = await train(buildConfig(dir, raw(path.join(dir, 'full')), 2), silent);
  const cut = interruptAfter(13);
  const runB = path.join(dir, 'cut');
  const first = await train(buildConfig(dir, raw(runB), 2), cut.progress, { signals: cut.signals });
  assert.equal(first.interrupted, 'SIGINT');
  assert.equal(first.steps, 13);
  assert.ok(fs.existsSync(path.join(runB, 'checkpoints', 'step-13', 'trainer-state.json')));
  const resumed = await train(buildConfig(dir, raw(runB), 2), silent, { resume: runB });
  assert.equal(resumed.steps, 24);
  assert.deepEqual(Buffer.from(resumed.weights.buffer), Buffer.from(full.weights.buffer), 'final weights differ');
  assert.deepEqual(Buffer.from(resumed.ema!.buffer), Buffer.from(full.ema!.buffer), 'EMA weights differ');
  assert.deepEqual(fs.readFileSync(path.join(runB, 'final', 'weights.bin')), fs.readFileSync(path.join(dir, 'full', 'final', 'weights.bin')));
});

// Without BatchNorm (whose towers normalise per shard, so N matters) the split does not
// change the mathematics, only the float summation order.
test('a resume may change the number of workers: the result equals the uninterrupted run to float tolerance', async () => {
  const full = await train(buildConfig(dir, raw(path.join(dir, 'full3'), 'mlp'), 2), silent);
  const cut = interruptAfter(7);
  const runC = path.join(dir, 'cut3');
  await train(buildConfig(dir, raw(runC, 'mlp'), 2), cut.progress, { signals: cut.signals });
  const resumed = await train(buildConfig(dir, raw(runC, 'mlp'), 3), silent, { resume: runC });
  const worst = resumed.weights.reduce((m, v, i) => Math.max(m, Math.abs(v - full.weights[i]!)), 0);
  assert.ok(worst < 1e-4, `worst difference ${worst}`);
});

test('a resume that changes the global batch is refused, naming what differs', async () => {
  const runD = path.join(dir, 'cut');
  await assert.rejects(
    train(buildConfig(dir, { ...raw(runD), training: { ...raw(runD).training, batchSize: 4 } }, 2), silent, { resume: runD }),
    (e: Error & { code?: string }) => e.code === 'E_CONFIG' && /training\.batchSize is 4, the checkpoint was trained with 8/.test(e.message),
  );
});
