// Gradient accumulation: each worker runs its shard as k micro-batches and sums their
// gradients; a global batch trained that way equals the same batch in one go.
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { assertWeightsClose, buildConfig, initialWeights, referenceTrain, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

test('accumulateSteps 3 on 2 workers equals one batch of the same global size', async (t) => {
  const dir = tempDir('accumulate');
  const raw = (k: number) => ({
    name: `acc${k}`,
    model: { module: writeModelModule(dir, 'l2') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 36, 'onehot', 4) },
    training: { batchSize: 12, epochs: 2, seed: 2, accumulateSteps: k },
    optimizer: { name: 'momentum', learningRate: 0.1 },
  });
  const ref = await referenceTrain(buildConfig(dir, raw(1), 1));
  const init = await initialWeights(buildConfig(dir, raw(1), 1));
  const one = await train(buildConfig(dir, raw(1), 2), silent);
  const three = await train(buildConfig(dir, raw(3), 2), silent);
  assertWeightsClose(t, three.weights, one.weights, 'accumulated vs one batch', { initial: init });
  assertWeightsClose(t, three.weights, ref.weights, 'accumulated vs single-process tfjs');
  ref.model.dispose();
});
