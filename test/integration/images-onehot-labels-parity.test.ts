// With categoricalCrossentropy an image folder's labels are one-hot rows, made from the class
// indices as they are staged: training from the PNG folder gives the bits of training on the
// same pixels and one-hot labels in .npy files (2 workers, shards 5 + 5).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { writeNpy } from '../../src/shared/npy.ts';
import { writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('images-onehot');
const N = 60;

test('categoricalCrossentropy: a PNG folder trains the bits of its pixels and one-hot labels in .npy files', async () => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), N);
  const features = path.join(dir, 'x.npy');
  const labels = path.join(dir, 'y.npy');
  writeNpy(features, { dtype: 'float32', shape: [N, 28, 28, 1], data: Float32Array.from(digits.pixels, (k) => k / 255) });
  const onehot = new Float32Array(N * 10);
  digits.labels.forEach((c, i) => (onehot[i * 10 + c] = 1));
  writeNpy(labels, { dtype: 'float32', shape: [N, 10], data: onehot });
  const model = { module: writeDigitModel(dir) };
  const run = (name: string, data: Record<string, unknown>) =>
    train(
      buildConfig(
        dir,
        {
          name,
          model,
          loss: 'categoricalCrossentropy',
          data: { train: data, threads: 1 },
          training: { batchSize: 10, steps: 8, seed: 5 },
          optimizer: { name: 'sgd', learningRate: 0.5 },
        },
        2,
      ),
      silent,
    );
  const fromNpy = await run('npy', { type: 'npy', features, labels });
  const fromPng = await run('png', { type: 'images', dir: digits.dir, size: [28, 28], channels: 1 });
  assert.deepEqual(Buffer.from(fromPng.weights.buffer), Buffer.from(fromNpy.weights.buffer));
});
