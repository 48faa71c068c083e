// training.syncBatchNorm: N workers train the model one process trains with the same global
// batch, BatchNorm included. A dense -> BatchNorm -> relu -> dense model, 2 epochs of batches of
// 10, on N = 1, 2, 3, 4 simulated GPUs (3 and 4: uneven shards of 4/3/3 and 3/3/2/2) on wasm,
// whose fused kernels sum the statistics, and N = 3 on tfjs's cpu backend, where tf ops do:
// the trainable weights and the moving mean and variance equal plain single-process tfjs on the
// whole batch (test/helpers/train-fixture.ts referenceTrain, tfjs's own op-by-op layer) within
// 1e-5. A guard checks that per-shard statistics (the default) would not pass: the towers of 2
// differ from the whole batch by more than 1e-3.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import {
  assertWeightsClose,
  buildConfig,
  initialWeights,
  referenceTrain,
  silent,
  tempDir,
  towerReferenceTrain,
  worstDiff,
  writeDataset,
  writeModelModule,
} from '../helpers/train-fixture.ts';

const dir = tempDir('sync-bn');
const raw = (name: string) => ({
  name,
  model: { module: writeModelModule(dir, 'batchnorm') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 40, 'onehot', 71) },
  training: { batchSize: 10, epochs: 2, seed: 19, syncBatchNorm: true },
  optimizer: { name: 'momentum', learningRate: 0.1, momentum: 0.9 },
});

let reference: Promise<{ weights: Float32Array; steps: number; trainable: number }> | null = null;
/** Plain tfjs, one process, the whole batch: computed once, the same for every N. */
function wholeBatch() {
  reference ??= (async () => {
    const ref = await referenceTrain(buildConfig(dir, raw('ref'), 1));
    const trainable = ref.model.trainableWeights.reduce((a, w) => a + (w.shape as number[]).reduce((p, d) => p * d, 1), 0);
    assert.equal(ref.model.nonTrainableWeights.length, 2, 'moving mean and moving variance');
    ref.model.dispose();
    return { weights: ref.weights, steps: ref.steps, trainable };
  })();
  return reference;
}

for (const [n, backend] of [
  [1, 'wasm'],
  [2, 'wasm'],
  [3, 'wasm'],
  [4, 'wasm'],
  [3, 'cpu'],
] as const) {
  test(`syncBatchNorm: N = ${n} on ${backend}${10 % n ? ' (uneven shards)' : ''} trains the weights and moving statistics of one process`, async (t) => {
    const cfg = buildConfig(dir, raw(`sync-${n}-${backend}`), n, backend);
    const ref = await wholeBatch();
    const r = await train(cfg, silent);
    assert.equal(r.steps, ref.steps);
    assert.equal(r.weights.length, ref.weights.length);
    const init = await initialWeights(cfg);
    const k = ref.trainable;
    assertWeightsClose(t, r.weights.subarray(0, k), ref.weights.subarray(0, k), `N=${n} ${backend} trainable`, { initial: init.subarray(0, k) });
    assertWeightsClose(t, r.weights.subarray(k), ref.weights.subarray(k), `N=${n} ${backend} moving statistics`, { initial: init.subarray(k) });
  });
}

test('syncBatchNorm guard: per-shard statistics of 2 workers differ from the whole batch (so the tests above are about syncing)', async () => {
  const towers = await towerReferenceTrain(buildConfig(dir, raw('towers'), 2), 2);
  towers.model.dispose();
  const worst = worstDiff(towers.weights, (await wholeBatch()).weights).abs;
  assert.ok(worst > 1e-3, `towers of 2 differ from the whole batch by only ${worst}`);
});
