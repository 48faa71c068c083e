// The console's metrics line shows the loss metrics.jsonl records for the same step (the mean
// over the steps since the previous line), labelled as such, not the last batch's loss.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Progress } from '../../src/coordinator/console/progress.ts';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

test('the console loss is the logged window mean, labelled with its window', async () => {
  const dir = tempDir('console-loss');
  const cfg = buildConfig(
    dir,
    {
      model: { module: writeModelModule(dir, 'mlp') },
      loss: 'categoricalCrossentropy',
      data: { train: writeDataset(dir, 'train', 40, 'onehot', 3) },
      training: { batchSize: 4, steps: 10, seed: 1 },
      optimizer: { name: 'sgd', learningRate: 0.5 },
      log: { every: 4 },
    },
    2,
  );
  const shown = new Map<number, string>();
  const progress: Progress = { step: (step, _total, text) => void shown.set(step, text), line() {}, done() {} };
  await train(cfg, progress);
  const logged = fs
    .readFileSync(path.join(cfg.runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; step: number; loss: number })
    .filter((l) => l.type === 'train');
  assert.deepEqual(
    logged.map((l) => l.step),
    [4, 8, 10],
  );
  const windows = [4, 4, 2];
  logged.forEach((l, i) => {
    const text = shown.get(l.step) ?? '';
    const m = /\bloss\(mean of (\d+)\) (\S+) /.exec(text);
    assert.ok(m, `step ${l.step}: no labelled loss in "${text}"`);
    assert.equal(Number(m[1]), windows[i], `step ${l.step}: the window`);
    assert.equal(m[2], l.loss.toFixed(4), `step ${l.step}: the console shows ${m[2]}, metrics.jsonl ${l.loss}`);
  });
});
