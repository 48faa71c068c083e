// A custom loss (Huber, delta 1) on one output of the two-output model and a built-in
// (sparseCategoricalCrossentropy) on the other, with loss weights, on 2 workers with uneven
// shards: the weights equal those of a plain-tfjs reference of Σ_k lw_k · mean_i(l_k,i), whose
// Huber is written in the test; eval reports loss.<output> for both, accuracy for the classes
// only, and metrics: apply to the outputs they suit (accuracy: class; mae: both).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Scalar, Tensor, Tensor1D, Variable } from '@tensorflow/tfjs';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { train } from '../../src/coordinator/train.ts';
import { readNpy } from '../../src/shared/npy.ts';
import { HUBER_ELEMENTS, referenceHuber, writeLossModule } from '../helpers/custom-loss.ts';
import {
  assertWeightsClose,
  buildConfig,
  buildReferenceModel,
  flatWeights,
  initialWeights,
  loadTf,
  silent,
  tempDir,
  type TF,
} from '../helpers/train-fixture.ts';
import { writeTwoIoData, writeTwoIoModel, type TwoIoFiles } from '../helpers/two-io-model.ts';

const dir = tempDir('custom-loss-two-io');

function load(tf: TF, files: TwoIoFiles) {
  const t = (file: string) => {
    const a = readNpy(file);
    return tf.tensor(a.data, a.shape, a.dtype === 'int32' ? 'int32' : 'float32');
  };
  return { image: t(files.features.image), meta: t(files.features.meta), cls: t(files.labels.class), box: t(files.labels.box) };
}

function losses(tf: TF, cls: Tensor, box: Tensor, preds: Tensor[]): [Tensor1D, Tensor1D] {
  const onehot = tf.oneHot(tf.cast<Tensor1D>(tf.reshape(cls, [-1]), 'int32'), 3);
  return [tf.metrics.categoricalCrossentropy(onehot, preds[0]!) as Tensor1D, referenceHuber(tf, box, preds[1]!)];
}

test('Huber on box, sparse cross-entropy on class, loss weights: N=2 equals the reference; eval reports both outputs', async (t) => {
  const trainFiles = writeTwoIoData(dir, 'train', 30, 31);
  const evalFiles = writeTwoIoData(dir, 'eval', 13, 32);
  const lw = { class: 1, box: 2.5 };
  const raw = {
    name: 'custom-two-io',
    model: { module: writeTwoIoModel(dir) },
    loss: { class: 'sparseCategoricalCrossentropy', box: { module: writeLossModule(dir, 'box-loss.mjs', HUBER_ELEMENTS) } },
    lossWeights: lw,
    data: { train: { type: 'npy', ...trainFiles }, eval: { type: 'npy', ...evalFiles } },
    training: { batchSize: 7, epochs: 2, seed: 8 },
    eval: { batchSize: 5 },
    metrics: ['accuracy', 'mae'],
    optimizer: { name: 'sgd', learningRate: 0.3 },
  };
  const cfg = buildConfig(dir, raw, 2);

  // The reference: plain tfjs, sgd on lw_class · mean(cce) + lw_box · mean(huber) per global batch.
  const tf = await loadTf();
  const model = await buildReferenceModel(tf, cfg);
  const d = load(tf, trainFiles);
  const optimizer = tf.train.sgd(cfg.optimizer.learningRate);
  const vars = model.trainableWeights.map((v) => (v as unknown as { val: Variable }).val);
  const plan = new BatchPlan(30, cfg.training.batchSize, cfg.training.seed, cfg.training.dropLast, cfg.training);
  for (let step = 0; step < plan.totalSteps; step++) {
    const idx = tf.tensor1d(Array.from(plan.batchAt(step).indices), 'int32');
    const [image, meta, cls, box] = [d.image, d.meta, d.cls, d.box].map((x) => tf.gather(x, idx));
    optimizer.minimize(
      () => {
        const [lc, lb] = losses(tf, cls!, box!, model.apply([image!, meta!], { training: true }) as Tensor[]);
        return tf.add<Scalar>(tf.mul(tf.mean(lc), lw.class), tf.mul(tf.mean(lb), lw.box));
      },
      false,
      vars,
    );
    tf.dispose([idx, image!, meta!, cls!, box!]);
  }
  const e = load(tf, evalFiles);
  const [ec, eb, emae] = tf.tidy(() => {
    const preds = model.apply([e.image, e.meta], { training: false }) as Tensor[];
    const [lc, lb] = losses(tf, e.cls, e.box, preds);
    return [tf.mean(lc), tf.mean(lb), tf.mean(tf.metrics.meanAbsoluteError(e.box, preds[1]!))].map((x) => x.dataSync()[0]!);
  });

  const r = await train(cfg, silent);
  assertWeightsClose(t, r.weights, flatWeights(model), 'custom loss on box + sparse cross-entropy on class, N=2', { initial: await initialWeights(cfg) });
  const got = r.eval!.outputLosses!;
  assert.ok(Math.abs(got.class! - ec!) <= 1e-5 * ec!, `loss.class ${got.class}, reference ${ec}`);
  assert.ok(Math.abs(got.box! - eb!) <= 1e-5 * eb!, `loss.box ${got.box}, reference ${eb}`);
  const total = lw.class * ec! + lw.box * eb!;
  assert.ok(Math.abs(r.eval!.loss - total) <= 1e-5 * total, `loss ${r.eval!.loss}, reference ${total}`);
  // The custom-loss output has no classes: no accuracy, no top-k; its mae is measured.
  assert.equal(r.eval!.outputs!.box!.accuracy, null);
  assert.equal(r.eval!.outputs!.box!.topK, null);
  assert.ok(Math.abs(r.eval!.outputs!.box!.mae - emae!) <= 1e-5 * emae!, `mae.box ${r.eval!.outputs!.box!.mae}, reference ${emae}`);
  assert.equal(typeof r.eval!.outputs!.class!.accuracy, 'number');
  assert.deepEqual(Object.keys(r.eval!.metrics!), ['accuracy.class', 'mae.class', 'mae.box']);
  model.dispose();
  optimizer.dispose();
});
