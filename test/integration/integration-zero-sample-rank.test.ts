// A final batch smaller than the number of workers: 35 samples with batch 8 leave 3 for the
// last step of each epoch, so on 4 workers rank 3 has no sample. It sits the step out (no
// hang, no contribution) and the model still matches single-process training.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import {
  assertWeightsClose,
  buildConfig,
  initialWeights,
  referenceTrain,
  silent,
  tempDir,
  towerRanges,
  writeDataset,
  writeModelModule,
} from '../helpers/train-fixture.ts';

const dir = tempDir('zero');

test('zero-sample rank: 3 leftover samples on 4 workers', async (t) => {
  assert.deepEqual(
    towerRanges(3, 4).map(([a, b]) => b - a),
    [1, 1, 1, 0],
  );
  const raw = {
    name: 'zero',
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 35, 'onehot', 61) },
    training: { batchSize: 8, epochs: 2, seed: 17 },
    optimizer: { name: 'momentum', learningRate: 0.2, momentum: 0.9 },
  };
  const cfg = buildConfig(dir, raw, 4);
  const ref = await referenceTrain(cfg);
  const r = await train(cfg, silent);
  assert.equal(r.steps, 10);
  assert.equal(ref.steps, 10);
  assert.ok(Number.isFinite(r.finalLoss), `final loss ${r.finalLoss}`);
  assertWeightsClose(t, r.weights, ref.weights, 'N=4, last batch 3', { initial: await initialWeights(cfg) });
  ref.model.dispose();
});
