// Gradient accumulation with weighted samples: each micro-batch's loss carries its rows' weights,
// so 2 workers x 3 micro-batches (global batch 11: shards 6 + 5, micro-batches 2+2+2 and 2+2+1)
// train the model of the weighted single-process reference.
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { assertWeightsClose, buildConfig, initialWeights, loadTf, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { sampleWeightsOf, weightedReferenceTrain, writeWeights } from '../helpers/weighted-reference.ts';

const dir = tempDir('weighted-accumulate');

test('accumulateSteps 3 on 2 workers with class and sample weights equals the weighted reference', async (t) => {
  const data = writeDataset(dir, 'train', 33, 'onehot', 31);
  const w = writeWeights(dir, 'train', 33, 8);
  const classWeights = { 1: 4 };
  const raw = (k: number) => ({
    name: `acc${k}`,
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: { ...data, weights: w.file } },
    training: { batchSize: 11, epochs: 2, seed: 2, accumulateSteps: k, classWeights },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  });
  const tf = await loadTf();
  const ref = await weightedReferenceTrain(buildConfig(dir, raw(1), 1), sampleWeightsOf(tf, data, classWeights, w.values));
  const r = await train(buildConfig(dir, raw(3), 2), silent);
  assertWeightsClose(t, r.weights, ref.weights, 'weighted, accumulated', { initial: await initialWeights(buildConfig(dir, raw(1), 1)) });
  ref.model.dispose();
});
