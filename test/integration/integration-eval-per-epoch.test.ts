// Evaluations and checkpoints by the epoch: with an eval set the run evaluates at the end of
// each epoch by default (Keras's validation_data), eval.every: { epochs: 2 } every other one,
// checkpoint.every: epoch checkpoints at each epoch's end; step counts work as before. An
// epoch here is 6 steps (44 samples, batch 8: the last batch is short), so the boundaries are
// not multiples of the batch. Each evaluation is of the weights after exactly its steps: it
// equals a single-process evaluation of the plain-tfjs reference at that step.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, evaluateReference, loadTf, referenceTrain, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { metricsOf } from '../helpers/eval-watch-fixture.ts';

const dir = tempDir('eval-per-epoch');
const data = { train: writeDataset(dir, 'train', 44, 'onehot', 11), eval: writeDataset(dir, 'eval', 15, 'onehot', 12) };
const raw = (name: string, over: Record<string, unknown>) => ({
  name,
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'categoricalCrossentropy',
  data,
  training: { batchSize: 8, epochs: 3, seed: 4 },
  optimizer: { name: 'sgd', learningRate: 0.3 },
  runDir: path.join(dir, name),
  ...over,
});
const checkpoints = (runDir: string) =>
  fs
    .readdirSync(path.join(runDir, 'checkpoints'))
    .map((n) => Number(/^step-(\d+)$/.exec(n)?.[1]))
    .sort((a, b) => a - b);

test('by default: an eval line at the end of each epoch (steps 6, 12, 18), of the weights after those steps', async () => {
  const cfg = buildConfig(dir, raw('default', { checkpoint: { every: 'epoch', keep: 10 } }), 2);
  assert.deepEqual(cfg.eval.every, { epochs: 1 });
  const r = await train(cfg, silent);
  const evals = metricsOf(r.runDir).evals;
  assert.deepEqual(
    evals.map((l) => l.step),
    [6, 12, 18],
  );
  assert.deepEqual(
    evals.map((l) => l.epoch),
    [0, 1, 2],
    'each line names the epoch it closes',
  );
  assert.deepEqual(checkpoints(r.runDir), [6, 12, 18]);
  const tf = await loadTf();
  const ref = new Map<number, number>();
  await referenceTrain(cfg, {
    onStep: (done, m) => {
      if (done % 6 === 0) ref.set(done, evaluateReference(tf, m, cfg.data.eval!, cfg.loss).loss);
    },
  });
  for (const l of evals)
    assert.ok(
      Math.abs((l.loss as number) - ref.get(l.step)!) < 1e-5,
      `eval loss at step ${l.step}: ${JSON.stringify(l.loss)} vs the reference's ${ref.get(l.step)}`,
    );
});

test('{ epochs: 2 } evaluates and checkpoints every other epoch (and at the end); step counts still work', async () => {
  const r2 = await train(
    buildConfig(
      dir,
      raw('two', { training: { batchSize: 8, epochs: 5, seed: 4 }, eval: { every: { epochs: 2 } }, checkpoint: { every: { epochs: 2 }, keep: 10 } }),
      2,
    ),
    silent,
  );
  assert.deepEqual(
    metricsOf(r2.runDir).evals.map((l) => l.step),
    [12, 24, 30],
  );
  assert.deepEqual(checkpoints(r2.runDir), [12, 24, 30]);
  const rs = await train(buildConfig(dir, raw('steps', { eval: { every: 4 }, checkpoint: { every: 5, keep: 10 } }), 1), silent);
  assert.deepEqual(
    metricsOf(rs.runDir).evals.map((l) => l.step),
    [4, 8, 12, 16, 18],
  );
  assert.deepEqual(checkpoints(rs.runDir), [5, 10, 15, 18]);
  const none = await train(buildConfig(dir, raw('end', { eval: { every: 0 } }), 1), silent);
  assert.deepEqual(
    metricsOf(none.runDir).evals.map((l) => l.step),
    [18],
    'eval.every: 0 evaluates at the end only',
  );
});
