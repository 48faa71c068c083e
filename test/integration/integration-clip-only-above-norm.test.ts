// clipNorm clips, it does not normalise: a step whose global gradient norm is below clipNorm is
// applied unscaled, one above it is scaled down to clipNorm (tf.clip_by_global_norm). The
// threshold here lies inside the range of the run's norms, and the test refuses to prove
// anything unless the reference has steps on both sides of it.
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

const CLIP = 0.6;

test('clipNorm between the smallest and the largest gradient norm on 2 workers: single-process tfjs clipping only the steps above it', async (t) => {
  const dir = tempDir('clip-some');
  const raw = {
    name: 'clip-some',
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 30, 'onehot', 8) },
    training: { batchSize: 10, epochs: 3, seed: 5, clipNorm: CLIP },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  };
  const cfg = buildConfig(dir, raw, 1);
  const tf = await loadTf();
  const model = await buildReferenceModel(tf, cfg);
  const data = loadData(tf, cfg.data.train);
  const opt = tf.train.sgd(0.5);
  const vars = model.trainableWeights.map((w) => (w as unknown as { val: Variable }).val);
  const plan = new BatchPlan(data.count, 10, 5, false, cfg.training);
  const norms: number[] = [];
  for (let step = 0; step < plan.totalSteps; step++) {
    tf.tidy(() => {
      const idx = tf.tensor1d(Array.from(plan.batchAt(step).indices), 'int32');
      const x = tf.gather(data.x, idx);
      const y = tf.gather(data.y, idx);
      const { grads } = tf.variableGrads(() => tf.mean<Scalar>(perSampleLoss(tf, cfg.loss, y, model.apply(x, { training: true }) as Tensor)), vars);
      const norm = Math.sqrt(vars.reduce((a, v) => a + tf.sum(tf.square(grads[v.name]!)).dataSync()[0]!, 0));
      norms.push(norm);
      const scale = norm > CLIP ? CLIP / norm : 1;
      opt.applyGradients(Object.fromEntries(vars.map((v) => [v.name, tf.mul(grads[v.name]!, scale)])));
    });
  }
  const clipped = norms.filter((n) => n > CLIP).length;
  t.diagnostic(`norms ${norms.map((n) => n.toFixed(3)).join(' ')}: ${clipped} of ${norms.length} steps clipped`);
  if (clipped === 0 || clipped === norms.length)
    throw new Error(`clipNorm ${CLIP} clips ${clipped} of ${norms.length} steps: the fixture needs steps on both sides`);
  const r = await train(buildConfig(dir, raw, 2), silent);
  assertWeightsClose(t, r.weights, flatWeights(model), 'sgd clipped at some steps, N=2', { initial: await initialWeights(cfg) });
});
