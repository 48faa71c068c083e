// Adam on 2 and 3 simulated GPUs gives the weights of tf.train.adam (same beta1, beta2,
// epsilon) minimising the mean loss of the same global batches in one process.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { assertWeightsClose, buildConfig, initialWeights, referenceTrain, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('adam');
const raw = {
  name: 'adam',
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 40, 'onehot', 31) },
  training: { batchSize: 8, epochs: 2, seed: 7 },
  optimizer: { name: 'adam', learningRate: 0.02, beta1: 0.8, beta2: 0.99 },
};

test('adam: N = 2 and 3 match tf.train.adam', async (t) => {
  const ref = await referenceTrain(buildConfig(dir, raw, 1));
  const init = await initialWeights(buildConfig(dir, raw, 1));
  for (const n of [2, 3]) {
    const r = await train(buildConfig(dir, raw, n), silent);
    assert.equal(r.steps, ref.steps);
    assertWeightsClose(t, r.weights, ref.weights, `adam N=${n}`, { initial: init });
  }
  ref.model.dispose();
});
