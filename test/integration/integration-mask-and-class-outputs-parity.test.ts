// A model with two outputs, one of them with positions (an [n, 8, 8, 1] sigmoid mask beside an
// [n, 3] softmax class): the run's loss is the class loss plus the mask's loss averaged over its
// pixels, as Keras's multi-output fit computes it, so N=2 with uneven shards (global batch 7:
// 4 + 3) trains the weights of a plain-tfjs reference of that loss, and the final eval's total
// and per-output losses equal the reference's on the final weights.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Scalar, Tensor } from '@tensorflow/tfjs';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { train } from '../../src/coordinator/train.ts';
import type { NdArray } from '../../src/shared/npy.ts';
import { writeFeatures, writeLabels } from '../helpers/positional-output.ts';
import {
  assertWeightsClose,
  buildConfig,
  buildReferenceModel,
  flatWeights,
  initialWeights,
  loadTf,
  setFlatWeights,
  silent,
  tempDir,
} from '../helpers/train-fixture.ts';

const dir = tempDir('mask-and-class');

function labels(x: NdArray): { mask: NdArray; cls: NdArray } {
  const n = x.shape[0]!;
  const cls = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let p = 0; p < 64; p++) s += x.data[i * 64 + p]!;
    cls[i] = s < -1 ? 0 : s < 1 ? 1 : 2;
  }
  return {
    mask: { dtype: 'float32', shape: x.shape, data: Float32Array.from(x.data, (v) => (v > 0 ? 1 : 0)) },
    cls: { dtype: 'int32', shape: [n], data: cls },
  };
}

test('an [n, 8, 8, 1] mask and an [n, 3] class output: N=2 trains the reference weights, eval losses equal the reference', async (t) => {
  const model = path.join(dir, 'two-heads.mjs');
  fs.writeFileSync(
    model,
    `export default (tf) => {
  const image = tf.input({ shape: [8, 8, 1], name: 'image' });
  const h = tf.layers.conv2d({ filters: 2, kernelSize: 3, padding: 'same', activation: 'tanh', name: 'features' }).apply(image);
  const mask = tf.layers.conv2d({ filters: 1, kernelSize: 1, activation: 'sigmoid', name: 'mask' }).apply(h);
  const cls = tf.layers.dense({ units: 3, activation: 'softmax', name: 'cls' }).apply(tf.layers.flatten().apply(h));
  return tf.model({ inputs: image, outputs: [mask, cls] });
};\n`,
  );
  const tr = writeFeatures(dir, 'train', 20, [8, 8, 1], 91);
  const ev = writeFeatures(dir, 'eval', 11, [8, 8, 1], 92);
  const [yTr, yEv] = [labels(tr.x), labels(ev.x)];
  const files = (name: string, y: { mask: NdArray; cls: NdArray }) => ({
    mask: writeLabels(dir, `${name}-mask`, y.mask),
    cls: writeLabels(dir, `${name}-cls`, y.cls),
  });
  const raw = {
    name: 'two-heads',
    model: { module: model },
    loss: { mask: 'binaryCrossentropy', cls: 'sparseCategoricalCrossentropy' },
    data: { train: { type: 'npy', features: tr.file, labels: files('train', yTr) }, eval: { type: 'npy', features: ev.file, labels: files('eval', yEv) } },
    training: { batchSize: 7, epochs: 2, seed: 10 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  };
  const cfg = buildConfig(dir, raw, 2);

  // Keras's multi-output loss, written in plain tfjs ops: each output's loss is the mean over
  // every value tfjs's loss function gives (for the mask, one per pixel), and they add up.
  // (tfjs-layers' own trainOnBatch cannot train this model: it adds the outputs' unreduced
  // losses, [n, 8, 8] and [n], before its mean.)
  const tf = await loadTf();
  const ref = await buildReferenceModel(tf, cfg);
  const lossOf = (x: Tensor, mask: Tensor, cls: Tensor, training: boolean) => {
    const [pm, pc] = ref.apply(x, { training }) as [Tensor, Tensor];
    const lm = tf.mean<Scalar>(tf.metrics.binaryCrossentropy(mask, pm));
    const lc = tf.mean<Scalar>(tf.metrics.categoricalCrossentropy(tf.oneHot(tf.cast(cls, 'int32'), 3), pc));
    return { lm, lc, total: tf.add<Scalar>(lm, lc) };
  };
  const tensors = (x: NdArray, y: { mask: NdArray; cls: NdArray }): [Tensor, Tensor, Tensor] => [
    tf.tensor(x.data, x.shape),
    tf.tensor(y.mask.data, y.mask.shape),
    tf.tensor(y.cls.data, y.cls.shape, 'int32'),
  ];
  const [xs, ms, cs] = tensors(tr.x, yTr);
  const sgd = tf.train.sgd(0.5);
  const plan = new BatchPlan(20, 7, 10, false, cfg.training);
  for (let step = 0; step < plan.totalSteps; step++) {
    const idx = tf.tensor1d(Array.from(plan.batchAt(step).indices), 'int32');
    const [xb, mb, cb] = [xs, ms, cs].map((a) => tf.gather(a, idx)) as [Tensor, Tensor, Tensor];
    sgd.minimize(() => lossOf(xb, mb, cb, true).total);
    tf.dispose([idx, xb, mb, cb]);
  }
  const want = flatWeights(ref);
  tf.dispose([xs, ms, cs]);
  sgd.dispose();

  const r = await train(cfg, silent);
  assertWeightsClose(t, r.weights, want, 'mask + class, N=2', { initial: await initialWeights(cfg) });

  setFlatWeights(tf, ref, r.weights);
  const [ex, em, ec] = tensors(ev.x, yEv);
  const [total, mask, cls] = tf.tidy(() => {
    const l = lossOf(ex, em, ec, false);
    return [l.total, l.lm, l.lc].map((v) => v.dataSync()[0]!);
  });
  tf.dispose([ex, em, ec]);
  ref.dispose();
  t.diagnostic(`eval: loss ${r.eval!.loss} vs ${total}; ${JSON.stringify(r.eval!.outputLosses)} vs mask ${mask}, cls ${cls}`);
  const close = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) <= 1e-6 + 1e-5 * Math.abs(b), `${what}: ${a} vs the reference ${b}`);
  close(r.eval!.loss, total!, 'eval loss');
  close(r.eval!.outputLosses!.mask!, mask!, 'eval loss of mask');
  close(r.eval!.outputLosses!.cls!, cls!, 'eval loss of cls');
});
