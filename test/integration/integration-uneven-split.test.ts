// A global batch that does not divide by the number of workers (15 on 2: shards 8 + 7; 10 on 4:
// 3 + 3 + 2 + 2) still trains exactly the model of single-process training on that batch: each
// rank's loss is scaled by n_i / B, not 1 / N.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { assertWeightsClose, buildConfig, initialWeights, referenceTrain, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('uneven');
const model = { module: writeModelModule(dir, 'mlp') };

for (const [batchSize, n, count] of [
  [15, 2, 45],
  [10, 4, 40],
] as const) {
  test(`uneven split: global batch ${batchSize} on ${n} workers`, async (t) => {
    const raw = {
      name: `uneven-${batchSize}-${n}`,
      model,
      loss: 'categoricalCrossentropy',
      data: { train: writeDataset(dir, `train-${count}`, count, 'onehot', 41 + n) },
      training: { batchSize, epochs: 2, seed: 9 },
      optimizer: { name: 'sgd', learningRate: 0.5 },
    };
    const cfg = buildConfig(dir, raw, n);
    const ref = await referenceTrain(cfg);
    const r = await train(cfg, silent);
    assert.equal(r.steps, (2 * count) / batchSize);
    assertWeightsClose(t, r.weights, ref.weights, `B=${batchSize} N=${n}`, { initial: await initialWeights(cfg) });
    ref.model.dispose();
  });
}
