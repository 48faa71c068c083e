// MAE and RMSE of a regression (meanSquaredError, 2 outputs) over 37 eval rows in batches of 8
// on 3 workers equal a single-process computation over every output of every row: the workers
// return sums of per-row errors, never means of their shards.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { referencePredictions } from '../helpers/reference-predictions.ts';

const dir = tempDir('metrics-regression');

test('regression: rmse and mae over 37 rows on 3 workers equal the single-process values', async (t) => {
  const raw = {
    name: 'metrics-regression',
    model: { module: writeModelModule(dir, 'linear') },
    loss: 'meanSquaredError',
    data: { train: writeDataset(dir, 'train', 30, 'regression', 411), eval: writeDataset(dir, 'eval', 37, 'regression', 412) },
    training: { batchSize: 10, epochs: 1, seed: 9 },
    optimizer: { name: 'sgd', learningRate: 0.05 },
    eval: { batchSize: 8 },
    metrics: ['rmse', 'mae'],
  };
  const cfg = buildConfig(dir, raw, 3);
  const r = await train(cfg, silent);

  const ref = await referencePredictions(cfg, r.weights);
  const p = ref.scores;
  const y = ref.labels;
  assert.equal(p.length, y.length);
  let abs = 0;
  let sq = 0;
  for (let i = 0; i < y.length; i++) {
    abs += Math.abs(y[i]! - p[i]!);
    sq += (y[i]! - p[i]!) ** 2;
  }
  const want = { rmse: Math.sqrt(sq / y.length), mae: abs / y.length };
  const got = r.eval!.metrics!;
  t.diagnostic(`run ${JSON.stringify(got)} reference ${JSON.stringify(want)}`);
  assert.deepEqual(Object.keys(got), ['rmse', 'mae']);
  for (const [key, w] of Object.entries(want)) assert.ok(Math.abs((got[key] as number) - w) <= 1e-6 + 1e-5 * w, `${key}: ${got[key]} vs single-process ${w}`);
  assert.ok(got.rmse! > got.mae!, 'rmse is above mae unless every error is equal');
  assert.equal(r.eval!.accuracy, null, 'no accuracy for a regression, as shipped');
});
