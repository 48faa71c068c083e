// Each output's eval figures on several machines are the whole eval set's: for the two-output
// model ('class' softmax, 'box' regression), 2 machines x 1 worker log the per-output figures of
// 1 machine x 2 workers (the same weights, bit for bit): loss, accuracy, top-k and mae of each
// output, and the config's metrics per output (counts, AUC scores of the class output, rmse,
// custom sums of both outputs), and checkpoint.best on eval.accuracy.class picks the same step.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readMetrics, runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { needMpi, runMpi } from '../helpers/mpi.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeTwoIoData, writeTwoIoModel } from '../helpers/two-io-model.ts';

test('2 machines x 1 worker log the per-output eval figures of 1 machine x 2 workers', async (t) => {
  if (!needMpi(t)) return;
  const dir = tempDir('mpi-eval-outputs');
  fs.writeFileSync(path.join(dir, 'rows.mjs'), 'export default (yTrue, yPred, tf) => ({ rows: yTrue.shape[0], sum: tf.sum(yPred) });\n');
  const train = writeTwoIoData(dir, 'train', 40, 1);
  const evalFiles = writeTwoIoData(dir, 'eval', 37, 2);
  const raw = (runDir: string, perMachine: number) => ({
    model: { module: writeTwoIoModel(dir) },
    loss: { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError' },
    lossWeights: { box: 0.5 },
    data: { train: { type: 'npy', ...train }, eval: { type: 'npy', ...evalFiles } },
    training: { batchSize: 8, steps: 6, seed: 3 },
    optimizer: { name: 'sgd', learningRate: 0.3 },
    eval: { every: 2, batchSize: 7, topK: 2 },
    metrics: ['f1', { name: 'precision', average: 'micro' }, 'auc', 'rmse', { module: './rows.mjs' }],
    checkpoint: { best: { monitor: 'eval.accuracy.class' } },
    devices: { simulate: perMachine, backend: 'cpu' },
    runDir,
  });
  const two = path.join(dir, 'two');
  const r = await runMpi(2, ['train', writeConfigFile(dir, 'two', raw(two, 1))]);
  assert.equal(r.code, 0, r.stderr);
  const one = path.join(dir, 'one');
  const s = await runCliAsync(['train', writeConfigFile(dir, 'one', raw(one, 2))]);
  assert.equal(s.code, 0, s.stderr);
  const evals = (run: string) => readMetrics(path.join(run, 'metrics.jsonl')).filter((l) => l.type === 'eval');
  const a = evals(two).at(-1)! as Record<string, unknown>;
  const b = evals(one).at(-1)! as Record<string, unknown>;
  t.diagnostic(JSON.stringify(a));
  assert.equal(a.samples, 37);
  const am = a.metrics as Record<string, number>;
  const bm = b.metrics as Record<string, number>;
  assert.equal(am['rows.rows.class'], 37, 'custom sums of the class output over both machines');
  assert.equal(am['rows.rows.box'], 37, 'custom sums of the box output over both machines');
  const fields = ['loss', 'loss.class', 'accuracy.class', 'top_k.class', 'mae.class', 'loss.box', 'mae.box'];
  for (const key of fields) assert.ok(typeof b[key] === 'number', `${key} on 1 machine`);
  const same = (key: string, got: unknown, want: number) =>
    assert.ok(typeof got === 'number' && Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want)), `${key}: ${String(got)} on 2 machines, ${want} on 1`);
  for (const key of fields) same(key, a[key], b[key] as number);
  assert.deepEqual(Object.keys(am), Object.keys(bm));
  for (const [key, v] of Object.entries(bm)) same(`metrics.${key}`, am[key], v);
  const best = (run: string) => JSON.parse(fs.readFileSync(path.join(run, 'best', 'best.json'), 'utf8')) as { step: number; value: number };
  assert.deepEqual(best(two), best(one), 'the same best step and value');
});
