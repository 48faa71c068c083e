// Eval metrics on several machines are the whole eval set's, not one machine's: 2 machines x 1
// worker log the eval figures of 1 machine x 2 workers (the same weights, bit for bit), counts,
// AUC scores and custom sums included.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readMetrics, runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { needMpi, runMpi } from '../helpers/mpi.ts';

test('2 machines x 1 worker log the eval metrics of 1 machine x 2 workers', async (t) => {
  if (!needMpi(t)) return;
  const dir = tempDir('mpi-metrics');
  fs.writeFileSync(path.join(dir, 'rows.mjs'), 'export default (yTrue, yPred, tf) => ({ rows: yTrue.shape[0], top: tf.sum(tf.max(yPred, -1)) });\n');
  const raw = (runDir: string, perMachine: number) => ({
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 40, 'onehot', 1), eval: writeDataset(dir, 'eval', 37, 'onehot', 2) },
    training: { batchSize: 8, steps: 6, seed: 3 },
    optimizer: { name: 'sgd', learningRate: 0.3 },
    eval: { batchSize: 8, topK: 2 },
    metrics: ['accuracy', 'topK', 'f1', { name: 'precision', average: 'micro' }, 'auc', { module: './rows.mjs' }],
    devices: { simulate: perMachine, backend: 'cpu' },
    runDir,
  });
  const two = path.join(dir, 'two');
  const r = await runMpi(2, ['train', writeConfigFile(dir, 'two', raw(two, 1))]);
  assert.equal(r.code, 0, r.stderr);
  const one = path.join(dir, 'one');
  const s = await runCliAsync(['train', writeConfigFile(dir, 'one', raw(one, 2))]);
  assert.equal(s.code, 0, s.stderr);
  const last = (run: string) =>
    readMetrics(path.join(run, 'metrics.jsonl'))
      .filter((l) => l.type === 'eval')
      .at(-1)!;
  const a = last(two);
  const b = last(one);
  t.diagnostic(JSON.stringify(a.metrics));
  assert.equal(a.samples, 37);
  assert.equal((a.metrics as Record<string, number>)['rows.rows'], 37, 'custom sums over both machines');
  for (const [key, v] of Object.entries(b.metrics as Record<string, number>)) {
    const got = (a.metrics as Record<string, number>)[key]!;
    assert.ok(Math.abs(got - v) <= 1e-9 * Math.max(1, Math.abs(v)), `${key}: ${got} on 2 machines, ${v} on 1`);
  }
  assert.ok(Math.abs((a.loss as number) - (b.loss as number)) < 1e-9);
});
