// A frozen layer (trainable: false, as when fine-tuning on a pretrained base) holds
// non-trainable weights that no step changes: workers neither write nor reload them, and the
// result still equals single-process tfjs, frozen weights untouched.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { assertWeightsClose, buildConfig, initialWeights, referenceTrain, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

test('a frozen base and a trainable head on 2 workers match single-process tfjs', async (t) => {
  const dir = tempDir('frozen');
  const module = writeModelModule(dir, 'frozen');
  const raw = {
    name: 'frozen',
    model: { module },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 30, 'onehot', 6) },
    training: { batchSize: 10, epochs: 2, seed: 8 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  };
  const cfg = buildConfig(dir, raw, 1);
  const init = await initialWeights(cfg);
  const ref = await referenceTrain(cfg);
  const r = await train(buildConfig(dir, raw, 2), silent);
  assertWeightsClose(t, r.weights, ref.weights, 'frozen base + head', { initial: init });
  // The frozen kernel and bias (the non-trainable tail of the flat vector) never moved.
  const frozen = 6 * 8 + 8;
  assert.deepEqual(Array.from(r.weights.subarray(r.weights.length - frozen)), Array.from(init.subarray(init.length - frozen)));
  ref.model.dispose();
});
