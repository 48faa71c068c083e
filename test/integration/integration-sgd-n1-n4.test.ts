// Plain SGD on 1, 2, 3 and 4 simulated GPUs gives the weights of plain single-process tfjs
// training (tf.train.sgd minimising the mean loss of the same global batches).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { assertWeightsClose, buildConfig, initialWeights, referenceTrain, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('sgd');
const raw = {
  name: 'sgd',
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 40, 'onehot', 11) },
  training: { batchSize: 8, epochs: 2, seed: 3 },
  optimizer: { name: 'sgd', learningRate: 0.5 },
};

test('sgd: N = 1, 2, 3, 4 simulated GPUs match single-process tfjs training', async (t) => {
  const ref = await referenceTrain(buildConfig(dir, raw, 1));
  const init = await initialWeights(buildConfig(dir, raw, 1));
  assert.equal(ref.steps, 10);
  for (const n of [1, 2, 3, 4]) {
    const r = await train(buildConfig(dir, raw, n), silent);
    assert.equal(r.steps, 10, `N=${n}: steps`);
    assertWeightsClose(t, r.weights, ref.weights, `sgd N=${n}`, { initial: init });
  }
});
