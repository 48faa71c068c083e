// Sample weights on an image output weigh each sample's loss averaged over its pixels, as Keras
// does: an 8x8x1 autoencoder (meanSquaredError) with per-sample weights from an .npy (some 0)
// trains on N=2 with uneven shards (global batch 7: 4 + 3) the weights of a reference written from
// the definition, (Σ_i w_i · mean over pixels of (p - y)²) / B, and its eval loss is the weighted
// mean of the same per-sample values.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tensor } from '@tensorflow/tfjs';
import { train } from '../../src/coordinator/train.ts';
import type { NdArray } from '../../src/shared/npy.ts';
import { weightedSquaredErrorTrain, writeFeatures, writeLabels, writeLayersModule } from '../helpers/positional-output.ts';
import { assertWeightsClose, buildConfig, buildReferenceModel, initialWeights, loadTf, setFlatWeights, silent, tempDir } from '../helpers/train-fixture.ts';
import { writeWeights } from '../helpers/weighted-reference.ts';

const dir = tempDir('image-output-weights');
const COUNT = 20;

test('a weighted 8x8x1 autoencoder: N=2 trains the weighted reference, eval loss is the weighted mean', async (t) => {
  const x = writeFeatures(dir, 'train', COUNT, [8, 8, 1], 61);
  const y: NdArray = { dtype: 'float32', shape: x.x.shape, data: Float32Array.from(x.x.data, (v) => 0.5 * v) };
  const w = writeWeights(dir, 'train', COUNT, 62);
  const src = { type: 'npy', features: x.file, labels: writeLabels(dir, 'train', y), weights: w.file };
  const raw = {
    name: 'weighted-autoencoder',
    model: {
      module: writeLayersModule(
        dir,
        'autoencoder',
        `tf.layers.conv2d({ inputShape: [8, 8, 1], filters: 2, kernelSize: 3, padding: 'same', activation: 'tanh' }),
         tf.layers.conv2d({ filters: 1, kernelSize: 1 }),`,
      ),
    },
    loss: 'meanSquaredError',
    data: { train: src, eval: src },
    training: { batchSize: 7, epochs: 2, seed: 5 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  };
  const cfg = buildConfig(dir, raw, 2);
  const want = await weightedSquaredErrorTrain(cfg, x.x, y, w.values);
  const r = await train(cfg, silent);
  assertWeightsClose(t, r.weights, want, 'weighted autoencoder, N=2', { initial: await initialWeights(cfg) });

  // The eval loss: Σ_i w_i · mean over pixels of (p - y)², over the count of samples (as Keras).
  const tf = await loadTf();
  const model = await buildReferenceModel(tf, cfg);
  setFlatWeights(tf, model, r.weights);
  const per = tf.tidy(() => {
    const p = model.predict(tf.tensor(x.x.data, x.x.shape)) as Tensor;
    return tf.mean(tf.square(tf.sub(p, tf.tensor(y.data, y.shape))), [1, 2, 3]).dataSync();
  });
  model.dispose();
  const loss = Array.from(per as Float32Array).reduce((a, v, i) => a + v * w.values[i]!, 0) / COUNT;
  t.diagnostic(`eval loss ${r.eval!.loss} vs ${loss}`);
  assert.ok(Math.abs(r.eval!.loss - loss) <= 1e-6 + 1e-5 * loss, `eval loss ${r.eval!.loss} vs the weighted mean ${loss}`);
});
