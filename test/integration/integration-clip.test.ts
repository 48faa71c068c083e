// Clipping by global norm: the summed gradient of the global batch is scaled by
// clipNorm / max(norm, clipNorm) before the update, as tf.clip_by_global_norm does.
import { test } from 'node:test';
import type { Scalar, Tensor, Variable } from '@tensorflow/tfjs';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { train } from '../../src/coordinator/train.ts';
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
  writeDataset,
  writeModelModule,
} from '../helpers/train-fixture.ts';

test('clipNorm on 3 workers equals single-process tfjs with the gradient clipped to that global norm', async (t) => {
  const dir = tempDir('clip');
  const raw = {
    name: 'clip',
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 30, 'onehot', 8) },
    training: { batchSize: 10, epochs: 2, seed: 5, clipNorm: 0.05 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  };
  const cfg = buildConfig(dir, raw, 1);
  const tf = await loadTf();
  const model = await buildReferenceModel(tf, cfg);
  const data = loadData(tf, cfg.data.train);
  const opt = tf.train.sgd(0.5);
  const vars = model.trainableWeights.map((w) => (w as unknown as { val: Variable }).val);
  const plan = new BatchPlan(data.count, 10, 5, false, cfg.training);
  let clipped = 0;
  for (let step = 0; step < plan.totalSteps; step++) {
    tf.tidy(() => {
      const idx = tf.tensor1d(Array.from(plan.batchAt(step).indices), 'int32');
      const x = tf.gather(data.x, idx);
      const y = tf.gather(data.y, idx);
      const { grads } = tf.variableGrads(() => tf.mean<Scalar>(perSampleLoss(tf, cfg.loss, y, model.apply(x, { training: true }) as Tensor)), vars);
      const norm = Math.sqrt(vars.reduce((a, v) => a + tf.sum(tf.square(grads[v.name]!)).dataSync()[0]!, 0));
      const scale = 0.05 / Math.max(norm, 0.05);
      if (scale < 1) clipped++;
      opt.applyGradients(Object.fromEntries(vars.map((v) => [v.name, tf.mul(grads[v.name]!, scale)])));
    });
  }
  t.diagnostic(`${clipped} of ${plan.totalSteps} steps clipped`);
  if (clipped === 0) throw new Error('no step was clipped: the test would prove nothing');
  const r = await train(buildConfig(dir, raw, 3), silent);
  assertWeightsClose(t, r.weights, flatWeights(model), 'clipped sgd N=3', { initial: await initialWeights(cfg) });
});
