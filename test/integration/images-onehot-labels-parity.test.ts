// With categoricalCrossentropy an image folder's labels are one-hot rows, made from the class
// indices as they are staged: training from the PNG folder gives the bits of training on the
// same pixels and one-hot labels in .npy files (2 workers, shards 5 + 5).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digitParity } from '../helpers/digit-parity.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('images-onehot');

test('categoricalCrossentropy: a PNG folder trains the bits of its pixels and one-hot labels in .npy files', async () => {
  const { folder, npy, run } = await digitParity(dir, 60, 'onehot', {
    loss: 'categoricalCrossentropy',
    threads: 1,
    training: { batchSize: 10, steps: 8, seed: 5 },
  });
  const fromNpy = await run('npy', npy, 2);
  const fromPng = await run('png', folder, 2);
  assert.deepEqual(Buffer.from(fromPng.weights.buffer), Buffer.from(fromNpy.weights.buffer));
});
