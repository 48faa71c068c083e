// A custom loss on an image output (a squared error module returning per-pixel values [n, 8, 8, 1],
// averaged over the pixels by the run) trains, on N=2 with uneven shards (global batch 7: 4 + 3),
// the weights tfjs-layers trains with meanSquaredError, and the final eval's loss and mae (the
// absolute error over every pixel, not summed over the 64 of a sample) equal tfjs's model.evaluate.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import type { NdArray } from '../../src/shared/npy.ts';
import { layersReferenceEval, layersReferenceTrain, writeFeatures, writeLabels, writeLayersModule } from '../helpers/positional-output.ts';
import { assertWeightsClose, buildConfig, initialWeights, silent, tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('image-custom-loss');

test('a per-pixel custom loss on an [n, 8, 8, 1] output: N=2 trains tfjs weights, eval loss and mae equal model.evaluate', async (t) => {
  const module = path.join(dir, 'squared.mjs');
  fs.writeFileSync(module, 'export default (yTrue, yPred, tf) => tf.square(tf.sub(yPred, yTrue));\n');
  const tr = writeFeatures(dir, 'train', 20, [8, 8, 1], 81);
  const ev = writeFeatures(dir, 'eval', 11, [8, 8, 1], 82);
  const half = (a: NdArray): NdArray => ({ dtype: 'float32', shape: a.shape, data: Float32Array.from(a.data, (v) => 0.5 * v + 0.1) });
  const raw = {
    name: 'image-custom',
    model: {
      module: writeLayersModule(
        dir,
        'autoencoder',
        `tf.layers.conv2d({ inputShape: [8, 8, 1], filters: 2, kernelSize: 3, padding: 'same', activation: 'tanh' }),
         tf.layers.conv2d({ filters: 1, kernelSize: 1 }),`,
      ),
    },
    loss: { module },
    data: {
      train: { type: 'npy', features: tr.file, labels: writeLabels(dir, 'train', half(tr.x)) },
      eval: { type: 'npy', features: ev.file, labels: writeLabels(dir, 'eval', half(ev.x)) },
    },
    training: { batchSize: 7, epochs: 2, seed: 8 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  };
  const cfg = buildConfig(dir, raw, 2);
  const want = await layersReferenceTrain(cfg, tr.x, half(tr.x), 'meanSquaredError');
  const r = await train(cfg, silent);
  assertWeightsClose(t, r.weights, want, 'custom squared error, N=2', { initial: await initialWeights(cfg) });

  const [loss, mae] = await layersReferenceEval(cfg, r.weights, ev.x, half(ev.x), ['mae'], 'meanSquaredError');
  t.diagnostic(`eval: loss ${r.eval!.loss} vs ${loss}; mae ${r.eval!.mae} vs ${mae}`);
  assert.ok(Math.abs(r.eval!.loss - loss!) <= 1e-6 + 1e-5 * loss!, `eval loss ${r.eval!.loss} vs tfjs model.evaluate ${loss}`);
  assert.ok(Math.abs(r.eval!.mae - mae!) <= 1e-6 + 1e-5 * mae!, `eval mae ${r.eval!.mae} vs tfjs model.evaluate ${mae}`);
});
