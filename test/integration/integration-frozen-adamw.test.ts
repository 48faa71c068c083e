// A frozen layer's variables are non-trainable in the layout even though each keeps its own
// `trainable` flag: the optimizer never touches them. AdamW shows it: its decoupled weight decay
// would shrink every weight it is applied to, gradient or not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, initialWeights, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

test('adamw on a frozen base + trainable head: the frozen weights end exactly as they began', async () => {
  const dir = tempDir('frozen-adamw');
  const module = writeModelModule(dir, 'frozen');
  const raw = {
    name: 'frozen-adamw',
    model: { module },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 30, 'onehot', 6) },
    training: { batchSize: 10, steps: 6, seed: 8 },
    optimizer: { name: 'adamw', learningRate: 0.05, weightDecay: 0.5 },
  };
  const init = await initialWeights(buildConfig(dir, raw, 1));
  const r = await train(buildConfig(dir, raw, 2), silent);
  const frozen = 6 * 8 + 8; // the frozen kernel and bias: the non-trainable tail of the flat vector
  assert.deepEqual(Array.from(r.weights.subarray(r.weights.length - frozen)), Array.from(init.subarray(init.length - frozen)));
  assert.notDeepEqual(Array.from(r.weights.subarray(0, 27)), Array.from(init.subarray(0, 27)), 'the head did not train');
});
