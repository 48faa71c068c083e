// predict shards the rows over the workers (23 rows on 3 workers in chunks of 8: uneven at
// every level) and writes the outputs in input order, equal to the model's own predictions.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { runPredict } from '../../src/coordinator/inference.ts';
import { train } from '../../src/coordinator/train.ts';
import { readNpy } from '../../src/shared/npy.ts';
import { assertClose } from '../helpers/close.ts';
import { buildConfig, buildReferenceModel, loadTf, setFlatWeights, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

test('predict keeps input order for an uneven split', async () => {
  const dir = tempDir('predict');
  const raw = {
    name: 'predict',
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 24, 'onehot', 2) },
    training: { batchSize: 8, epochs: 1, seed: 1 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
    eval: { batchSize: 8 },
  };
  const cfg = buildConfig(dir, raw, 3);
  const trained = await train(cfg, silent);
  const input = writeDataset(dir, 'new', 23, 'onehot', 99);
  const output = path.join(dir, 'pred.npy');
  await runPredict(cfg, silent, { dir: path.join(cfg.runDir, 'final'), ema: false }, input.features, output);
  const got = readNpy(output);
  assert.deepEqual(got.shape, [23, 3]);

  const tf = await loadTf();
  const model = await buildReferenceModel(tf, cfg);
  setFlatWeights(tf, model, trained.weights);
  const x = readNpy(input.features);
  const want = (model.predict(tf.tensor(x.data as Float32Array, x.shape)) as import('@tensorflow/tfjs').Tensor).dataSync();
  assertClose(got.data, want, 1e-5, 1e-6, 'predictions');
});
