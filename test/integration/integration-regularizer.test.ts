// An L2 kernel regulariser: each rank adds the penalty scaled by n_i / B, so the sum over ranks
// carries it exactly once, as single-process training with model.calculateLosses() does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { assertWeightsClose, buildConfig, initialWeights, referenceTrain, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('l2');
const raw = {
  name: 'l2',
  model: { module: writeModelModule(dir, 'l2') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 45, 'onehot', 81) },
  training: { batchSize: 15, epochs: 3, seed: 23 },
  optimizer: { name: 'sgd', learningRate: 0.5 },
};

test('L2 kernel regulariser: N = 2 (uneven shards 8 + 7) matches the reference with the penalty counted once', async (t) => {
  const cfg = buildConfig(dir, raw, 2);
  const ref = await referenceTrain(cfg);
  assert.ok(ref.model.calculateLosses().length === 2, 'both kernels carry a penalty');
  const r = await train(cfg, silent);
  assert.equal(r.steps, ref.steps);
  assertWeightsClose(t, r.weights, ref.weights, 'l2 N=2', { initial: await initialWeights(cfg) });

  // The penalty matters: the same run without it ends elsewhere.
  const plain = await referenceTrain(buildConfig(dir, { ...raw, name: 'plain', model: { module: writeModelModule(dir, 'mlp') } }, 1));
  assert.throws(() => assertWeightsClose(t, plain.weights, ref.weights, 'without the penalty (expected to differ)'));
  ref.model.dispose();
  plain.model.dispose();
});
