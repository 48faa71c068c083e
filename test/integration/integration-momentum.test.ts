// Momentum SGD, plain and Nesterov, on simulated GPUs gives the weights of tf.train.momentum
// minimising the mean loss of the same global batches in one process: the coordinator's
// accumulator is the one tfjs keeps.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { assertWeightsClose, buildConfig, initialWeights, referenceTrain, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('momentum');
const base = {
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 40, 'onehot', 21) },
  training: { batchSize: 8, epochs: 2, seed: 5 },
};

for (const [nesterov, n] of [
  [false, 2],
  [true, 3],
] as const) {
  test(`momentum${nesterov ? ' (nesterov)' : ''}: N = ${n} matches tf.train.momentum`, async (t) => {
    const raw = { ...base, name: `momentum-${nesterov}`, optimizer: { name: 'momentum', learningRate: 0.1, momentum: 0.9, nesterov } };
    const cfg = buildConfig(dir, raw, n);
    const ref = await referenceTrain(cfg);
    const r = await train(cfg, silent);
    assert.equal(r.steps, ref.steps);
    assertWeightsClose(t, r.weights, ref.weights, `momentum nesterov=${nesterov} N=${n}`, { initial: await initialWeights(cfg) });
    ref.model.dispose();
  });
}
