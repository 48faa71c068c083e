// training.syncBatchNorm with gradient accumulation. Each worker runs its shard as k micro-batches;
// micro-batch j of every worker is normalised together, so the statistics are those of the
// global micro-batch j: the union of every shard's j-th slice (B/k rows), and the moving
// statistics move once per micro-batch, k times a step. That is one process with the same
// accumulation over those same global micro-batches, which the reference here computes in plain
// tfjs (the cpu backend, tfjs's own layer): per step, for each j, the gradient of
// (Σ loss over the union of the j-th slices) / B, summed over j, applied once. N = 2 workers,
// k = 2, batches of 12 (shards of 6, micro-batches of 3) and of 10 (5 = 3 + 2), on wasm.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NamedTensorMap, Scalar, Tensor, Variable } from '@tensorflow/tfjs';
import { train } from '../../src/coordinator/train.ts';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import {
  assertWeightsClose,
  buildConfig,
  buildReferenceModel,
  flatWeights,
  initialWeights,
  loadData,
  loadTf,
  perSampleLoss,
  silent,
  tempDir,
  towerRanges,
  writeDataset,
  writeModelModule,
} from '../helpers/train-fixture.ts';

const dir = tempDir('sync-bn-accumulate');
const WORKERS = 2;
const MICRO = 2;

/** One process over the global micro-batches: the reference. */
async function reference(cfg: ReturnType<typeof buildConfig>): Promise<Float32Array> {
  const tf = await loadTf();
  const model = await buildReferenceModel(tf, cfg);
  const data = loadData(tf, cfg.data.train);
  const optimizer = tf.train.momentum(0.1, 0.9);
  const vars = model.trainableWeights.map((w) => (w as unknown as { val: Variable }).val);
  const plan = new BatchPlan(data.count, cfg.training.batchSize, cfg.training.seed, cfg.training.dropLast, cfg.training);
  for (let step = 0; step < plan.totalSteps; step++) {
    const indices = plan.batchAt(step).indices;
    const B = indices.length;
    let sum: NamedTensorMap | null = null;
    for (let j = 0; j < MICRO; j++) {
      // The j-th slice of every shard, in rank order.
      const rows = towerRanges(B, WORKERS).flatMap(([a, b]) => {
        const [s, e] = towerRanges(b - a, MICRO)[j]!;
        return Array.from(indices.subarray(a + s, a + e));
      });
      const idx = tf.tensor1d(rows, 'int32');
      const x = tf.gather(data.x, idx);
      const y = tf.gather(data.y, idx);
      const { value, grads } = tf.variableGrads(() => {
        const pred = model.apply(x, { training: true }) as Tensor;
        return tf.mul<Scalar>(tf.sum(perSampleLoss(tf, cfg.loss, y, pred)), 1 / B);
      }, vars);
      if (sum === null) sum = grads;
      else {
        const next: NamedTensorMap = {};
        for (const key of Object.keys(sum)) next[key] = tf.add(sum[key]!, grads[key]!);
        tf.dispose([...Object.values(sum), ...Object.values(grads)]);
        sum = next;
      }
      tf.dispose([idx, x, y, value]);
    }
    optimizer.applyGradients(sum! as never);
    tf.dispose(Object.values(sum!));
  }
  const w = flatWeights(model);
  optimizer.dispose();
  model.dispose();
  tf.dispose([data.x, data.y]);
  return w;
}

for (const batchSize of [12, 10]) {
  test(`syncBatchNorm with accumulateSteps ${MICRO}, N = ${WORKERS}, B = ${batchSize}: statistics of the global micro-batch`, async (t) => {
    const cfg = buildConfig(
      dir,
      {
        name: `accumulate-${batchSize}`,
        model: { module: writeModelModule(dir, 'batchnorm') },
        loss: 'categoricalCrossentropy',
        data: { train: writeDataset(dir, 'train', 48, 'onehot', 5) },
        training: { batchSize, epochs: 2, seed: 3, accumulateSteps: MICRO, syncBatchNorm: true },
        optimizer: { name: 'momentum', learningRate: 0.1, momentum: 0.9 },
      },
      WORKERS,
      'wasm',
    );
    const expected = await reference(cfg);
    const r = await train(cfg, silent);
    assert.equal(r.weights.length, expected.length);
    assertWeightsClose(t, r.weights, expected, `B=${batchSize} weights and moving statistics`, { initial: await initialWeights(cfg) });
  });
}
