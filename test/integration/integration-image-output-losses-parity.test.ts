// Built-in losses on an image output (a conv net whose output is [n, 8, 8, C]: an autoencoder, a
// segmentation mask, per-pixel classes) average over the pixels as tfjs and Keras do, not sum:
// N=2 with uneven shards (global batch 7: 4 + 3) trains the weights tfjs-layers' own trainOnBatch
// trains, and the run's final eval (loss, accuracy, mae) equals tfjs's model.evaluate of them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import type { LossName } from '../../src/config/types.ts';
import type { NdArray } from '../../src/shared/npy.ts';
import { layersReferenceEval, layersReferenceTrain, writeFeatures, writeLabels, writeLayersModule } from '../helpers/positional-output.ts';
import { assertWeightsClose, buildConfig, initialWeights, silent, tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('image-output');
const COUNT = 20;
const EVAL = 11;
const PIXELS = 64;

const net = (units: number, activation: string) => `
  tf.layers.conv2d({ inputShape: [8, 8, 1], filters: 2, kernelSize: 3, padding: 'same', activation: 'tanh' }),
  tf.layers.conv2d({ filters: ${units}, kernelSize: 1, activation: '${activation}' }),`;

/** A pixel's class of 3: where its feature falls in [-1, 1). */
const classOf = (v: number) => Math.min(2, Math.floor((v + 1) * 1.5));

const LABELS: Record<LossName, (x: NdArray) => NdArray> = {
  // the autoencoder's target: its input
  meanSquaredError: (x) => ({ dtype: 'float32', shape: x.shape, data: Float32Array.from(x.data) }),
  // a mask: the pixels above 0.2
  binaryCrossentropy: (x) => ({ dtype: 'float32', shape: x.shape, data: Float32Array.from(x.data, (v) => (v > 0.2 ? 1 : 0)) }),
  // per-pixel classes, [n, 8, 8] (no trailing 1)
  sparseCategoricalCrossentropy: (x) => ({ dtype: 'int32', shape: x.shape.slice(0, 3), data: Int32Array.from(x.data, classOf) }),
  // per-pixel one-hot rows [n, 8, 8, 3]
  categoricalCrossentropy: (x) => {
    const d = new Float32Array(x.data.length * 3);
    x.data.forEach((v, i) => (d[i * 3 + classOf(v)] = 1));
    return { dtype: 'float32', shape: [...x.shape.slice(0, 3), 3], data: d };
  },
};

const CASES: Array<{ loss: LossName; units: number; activation: string; metrics: string[] }> = [
  { loss: 'meanSquaredError', units: 1, activation: 'linear', metrics: ['mae'] },
  { loss: 'binaryCrossentropy', units: 1, activation: 'sigmoid', metrics: ['accuracy', 'mae'] },
  { loss: 'sparseCategoricalCrossentropy', units: 3, activation: 'softmax', metrics: ['accuracy'] },
  { loss: 'categoricalCrossentropy', units: 3, activation: 'softmax', metrics: ['accuracy', 'mae'] },
];

const closeTo = (got: number | null, want: number, what: string) =>
  assert.ok(
    got !== null && Math.abs(got - want) <= 1e-6 + 1e-5 * Math.abs(want),
    `${what}: ${got} vs tfjs model.evaluate ${want} (diff ${(got ?? NaN) - want})`,
  );

for (const c of CASES) {
  test(`${c.loss} on an [n, 8, 8, ${c.units}] output: N=2 trains tfjs's weights, eval equals model.evaluate`, async (t) => {
    const train_ = writeFeatures(dir, `train-${c.loss}`, COUNT, [8, 8, 1], 31);
    const eval_ = writeFeatures(dir, `eval-${c.loss}`, EVAL, [8, 8, 1], 32);
    const yTrain = LABELS[c.loss](train_.x);
    const yEval = LABELS[c.loss](eval_.x);
    const raw = {
      name: `image-${c.loss}`,
      model: { module: writeLayersModule(dir, `image-${c.units}-${c.activation}`, net(c.units, c.activation)) },
      loss: c.loss,
      data: {
        train: { type: 'npy', features: train_.file, labels: writeLabels(dir, `train-${c.loss}`, yTrain) },
        eval: { type: 'npy', features: eval_.file, labels: writeLabels(dir, `eval-${c.loss}`, yEval) },
      },
      training: { batchSize: 7, epochs: 2, seed: 9 },
      optimizer: { name: 'sgd', learningRate: 0.5 },
    };
    const cfg = buildConfig(dir, raw, 2);
    const want = await layersReferenceTrain(cfg, train_.x, yTrain);
    const r = await train(cfg, silent);
    assertWeightsClose(t, r.weights, want, `${c.loss}, N=2`, { initial: await initialWeights(cfg) });

    const [loss, ...figures] = await layersReferenceEval(cfg, r.weights, eval_.x, yEval, c.metrics);
    assert.ok(r.eval, 'the run evaluated data.eval');
    t.diagnostic(`eval: loss ${r.eval.loss} vs ${loss}; accuracy ${r.eval.accuracy}; mae ${r.eval.mae} (tfjs: ${c.metrics.join(', ')} ${figures.join(', ')})`);
    assert.equal(r.eval.samples, EVAL);
    closeTo(r.eval.loss, loss!, 'eval loss');
    c.metrics.forEach((m, i) => closeTo(m === 'accuracy' ? r.eval!.accuracy : r.eval!.mae, figures[i]!, `eval ${m}`));
    if (c.loss !== 'meanSquaredError') assert.ok(r.eval.accuracy! <= 1, `accuracy ${r.eval.accuracy} is a fraction of the ${PIXELS} pixels`);
  });
}
