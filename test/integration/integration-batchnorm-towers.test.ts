// BatchNorm under data parallelism: each rank normalises its own shard (towers) and moves its
// own copy of the moving statistics; the coordinator sums the gradients in rank order and sets
// each statistic to Σ_i (n_i / B) · stats_i. Both the trainable weights and the moving
// statistics must equal the single-process tower reference (test/helpers/train-fixture.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import {
  assertWeightsClose,
  buildConfig,
  flatWeights,
  initialWeights,
  towerReferenceTrain,
  silent,
  tempDir,
  writeDataset,
  writeModelModule,
} from '../helpers/train-fixture.ts';

const dir = tempDir('bn');
const model = { module: writeModelModule(dir, 'batchnorm') };
const data = { train: writeDataset(dir, 'train', 40, 'onehot', 71) };

for (const [n, batchSize] of [
  [2, 10],
  [3, 10],
] as const) {
  test(`batchnorm towers: N = ${n}, B = ${batchSize}${batchSize % n ? ' (uneven shards)' : ''}`, async (t) => {
    const raw = {
      name: `bn-${n}`,
      model,
      loss: 'categoricalCrossentropy',
      data,
      training: { batchSize, epochs: 2, seed: 19 },
      optimizer: { name: 'momentum', learningRate: 0.1, momentum: 0.9 },
    };
    const cfg = buildConfig(dir, raw, n);
    const ref = await towerReferenceTrain(cfg, n);
    const trainable = ref.model.trainableWeights.reduce((a, w) => a + (w.shape as number[]).reduce((p, d) => p * d, 1), 0);
    assert.equal(ref.model.nonTrainableWeights.length, 2, 'moving mean and moving variance');
    const r = await train(cfg, silent);
    assert.equal(r.steps, ref.steps);
    assert.equal(r.weights.length, ref.weights.length);
    const init = await initialWeights(cfg);
    assertWeightsClose(t, r.weights.subarray(0, trainable), ref.weights.subarray(0, trainable), `N=${n} trainable`, { initial: init.subarray(0, trainable) });
    assertWeightsClose(t, r.weights.subarray(trainable), ref.weights.subarray(trainable), `N=${n} moving statistics`, { initial: init.subarray(trainable) });
    ref.model.dispose();
  });
}

test('batchnorm towers: the tower reference differs from whole-batch BatchNorm (so the test above is about towers)', async () => {
  const raw = {
    name: 'bn-guard',
    model,
    loss: 'categoricalCrossentropy',
    data,
    training: { batchSize: 10, epochs: 2, seed: 19 },
    optimizer: { name: 'momentum', learningRate: 0.1, momentum: 0.9 },
  };
  const cfg = buildConfig(dir, raw, 1);
  const one = await towerReferenceTrain(cfg, 1);
  const two = await towerReferenceTrain(cfg, 2);
  const a = flatWeights(one.model);
  const b = flatWeights(two.model);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
  assert.ok(worst > 1e-3, `towers of 2 and 1 differ by only ${worst}`);
  one.model.dispose();
  two.model.dispose();
});
