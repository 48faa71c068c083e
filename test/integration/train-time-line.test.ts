// After its steps a run says how many it trained, on how many samples (a short last batch counts
// its own rows, not a full batch), and how long they took: on a resumed run, the steps of this
// run alone. The figures of time are only checked to be there, never their values.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Progress } from '../../src/coordinator/console/progress.ts';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const TIME_LINE = /^trained (\d+) steps? \((\d+) samples\) in \d+\.\d+ s, \d+ samples\/s \(evaluations between them included\); start-up \d+\.\d+ s$/;

function capture(): { progress: Progress; lines: string[] } {
  const lines: string[] = [];
  return { progress: { step() {}, line: (text) => void lines.push(text), done() {} }, lines };
}

test('the time line counts the steps and samples of this run: a short last batch, then a resume', async () => {
  const dir = tempDir('time-line');
  const raw = {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 23, 'onehot', 3) },
    training: { batchSize: 5, epochs: 2, seed: 1 }, // 5 steps an epoch: 5+5+5+5+3 rows
    optimizer: { name: 'sgd', learningRate: 0.5 },
  };
  const first = capture();
  await train(buildConfig(dir, { ...raw, training: { ...raw.training, epochs: 1 } }, 2), first.progress);
  const m1 = first.lines.map((l) => TIME_LINE.exec(l)).find(Boolean);
  assert.ok(m1, `no time line in:\n${first.lines.join('\n')}`);
  assert.deepEqual([Number(m1[1]), Number(m1[2])], [5, 23]);

  const second = capture();
  const cfg = buildConfig(dir, { ...raw, name: 'time-line-2' }, 2);
  await train(cfg, capture().progress, { callbacks: { onStepEnd: (f) => (f.step === 7 ? 'stop' : undefined) } });
  await train(cfg, second.progress, { resume: cfg.runDir });
  const m2 = second.lines.map((l) => TIME_LINE.exec(l)).find(Boolean);
  assert.ok(m2, `no time line in:\n${second.lines.join('\n')}`);
  assert.deepEqual([Number(m2[1]), Number(m2[2])], [3, 5 + 5 + 3]);
});
