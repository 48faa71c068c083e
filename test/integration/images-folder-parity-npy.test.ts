// Training from a PNG folder is training from the same pixels in an .npy: the same bits after
// 10 steps on 1, 2 and 3 workers (a global batch of 10: shards 5 + 5 and 4 + 3 + 3), and a
// rerun on 2 workers gives the same bits again. The .npy holds the digits' pixels / 255
// (float32) in the folder's order (class, then file name) and their class indices.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { writeNpy } from '../../src/shared/npy.ts';
import { writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('images-parity');
const N = 60;

test('a PNG folder trains the weights its pixels in an .npy train, on 1, 2 and 3 workers', async () => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), N);
  const features = path.join(dir, 'x.npy');
  const labels = path.join(dir, 'y.npy');
  writeNpy(features, { dtype: 'float32', shape: [N, 28, 28, 1], data: Float32Array.from(digits.pixels, (k) => k / 255) });
  writeNpy(labels, { dtype: 'int32', shape: [N], data: digits.labels });
  const model = { module: writeDigitModel(dir) };
  const run = (name: string, data: Record<string, unknown>, workers: number) =>
    train(
      buildConfig(
        dir,
        {
          name,
          model,
          loss: 'sparseCategoricalCrossentropy',
          data: { train: data, threads: 2 },
          training: { batchSize: 10, steps: 10, seed: 4 },
          optimizer: { name: 'sgd', learningRate: 0.5 },
        },
        workers,
      ),
      silent,
    );
  const folder = { type: 'images', dir: digits.dir, size: [28, 28], channels: 1 };
  for (const workers of [1, 2, 3]) {
    const fromNpy = await run(`npy-${workers}`, { type: 'npy', features, labels }, workers);
    const fromPng = await run(`png-${workers}`, folder, workers);
    assert.equal(fromPng.steps, 10);
    assert.deepEqual(Buffer.from(fromPng.weights.buffer), Buffer.from(fromNpy.weights.buffer), `${workers} workers`);
    if (workers === 2) {
      const again = await run('png-2-again', folder, 2);
      assert.deepEqual(Buffer.from(again.weights.buffer), Buffer.from(fromPng.weights.buffer), 'rerun');
    }
  }
});
