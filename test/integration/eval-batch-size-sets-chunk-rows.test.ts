// eval.batchSize, not training.batchSize, is the rows an evaluation ships per chunk: in train's
// evaluation and in `mgpu-train eval` (inference.ts) alike. A custom metric module sees each
// worker's shard of a chunk; with eval.batchSize 4 on 2 workers no shard holds more than 2 rows,
// where training.batchSize 8 would give shards of 4 (the module throws on those).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runEval } from '../../src/coordinator/inference.ts';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('eval-batch');
fs.writeFileSync(
  path.join(dir, 'rows.mjs'),
  `export default (yTrue) => {
  if (yTrue.shape[0] > 2) throw new Error('a shard of ' + yTrue.shape[0] + ' rows');
  return { rows: yTrue.shape[0] };
};\n`,
);
const cfg = buildConfig(
  dir,
  {
    name: 'eval-batch',
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 16, 'onehot', 811), eval: writeDataset(dir, 'eval', 13, 'onehot', 812) },
    training: { batchSize: 8, steps: 1 },
    optimizer: { name: 'sgd' },
    eval: { batchSize: 4 },
    metrics: [{ module: './rows.mjs' }],
  },
  2,
);

test('train and mgpu-train eval split each evaluation into chunks of eval.batchSize rows', async () => {
  const r = await train(cfg, silent);
  assert.equal(r.eval?.samples, 13, "the run's final evaluation saw every row");
  const e = await runEval(cfg, silent, { dir: r.runDir, ema: false });
  assert.equal(e.samples, 13, 'mgpu-train eval saw every row');
});
