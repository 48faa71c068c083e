// A step skipped for a non-finite gradient is no update: Adam's bias correction (and every
// rule's 1-based update count) must not advance over it, as tfjs's optimizer does not advance
// when applyGradients is not called and PyTorch's GradScaler leaves the optimizer's step count
// alone when it skips. The run's weights equal plain tfjs's tf.train.adam trained on the same
// batches with the poisoned steps left out.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { train } from '../../src/coordinator/train.ts';
import { readNpy, writeNpy } from '../../src/shared/npy.ts';
import { assertWeightsClose, buildConfig, FEATURES, initialWeights, referenceTrain, silent, tempDir, writeDataset } from '../helpers/train-fixture.ts';

const dir = tempDir('skip-adam');
const COUNT = 40;
const B = 8;
const SEED = 3;

// One poisoned row (a feature of 1e30: finite, but the linear model's squared error on it
// overflows float32) in step 1's batch; with 2 epochs it is seen once more, in epoch 2.
const plan = new BatchPlan(COUNT, B, SEED, false, { epochs: 2, steps: null });
const poisoned = plan.batchAt(1).indices[0]!;
const data = writeDataset(dir, 'train', COUNT, 'regression', 12);
const x = readNpy(data.features);
x.data[poisoned * FEATURES] = 1e30;
writeNpy(data.features, x);
const skipped = new Set(Array.from({ length: plan.totalSteps }, (_, s) => s).filter((s) => plan.batchAt(s).indices.includes(poisoned)));

const model = path.join(dir, 'linear-only.mjs');
fs.writeFileSync(model, `export default (tf) => tf.sequential({ layers: [tf.layers.dense({ inputShape: [${FEATURES}], units: 2 })] });\n`);

const raw = {
  name: 'skip-adam',
  model: { module: model },
  loss: 'meanSquaredError',
  data: { train: data },
  training: { batchSize: B, epochs: 2, seed: SEED },
  optimizer: { name: 'adam', learningRate: 0.05 },
  reliability: { onNonFinite: 'skip' },
};

test('adam with skipped steps: the weights of tf.train.adam trained on the other steps alone', async (t) => {
  assert.equal(skipped.size, 2, 'fixture: the poisoned row is in one step of each epoch');
  assert.ok(Math.min(...skipped) < plan.totalSteps - 1, 'fixture: updates follow a skipped step');
  const ref = await referenceTrain(buildConfig(dir, raw, 1), { skipSteps: skipped });
  const init = await initialWeights(buildConfig(dir, raw, 1));
  const r = await train(buildConfig(dir, raw, 2), silent);
  assert.deepEqual(
    r.skippedSteps,
    [...skipped].sort((a, b) => a - b).map((k) => k + 1), // 1-based, as the train lines
  );
  assertWeightsClose(t, r.weights, ref.weights, 'adam N=2 with skips', { initial: init });
  ref.model.dispose();
});
