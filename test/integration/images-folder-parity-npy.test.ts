// Training from a PNG folder is training from the same pixels in an .npy: the same bits after
// 10 steps on 1, 2 and 3 workers (a global batch of 10: shards 5 + 5 and 4 + 3 + 3), and a
// rerun on 2 workers gives the same bits again. The .npy holds the digits' pixels / 255
// (float32) in the folder's order (class, then file name) and their class indices.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digitParity } from '../helpers/digit-parity.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('images-parity');

test('a PNG folder trains the weights its pixels in an .npy train, on 1, 2 and 3 workers', async () => {
  const { folder, npy, run } = await digitParity(dir, 60, 'index', {
    loss: 'sparseCategoricalCrossentropy',
    threads: 2,
    training: { batchSize: 10, steps: 10, seed: 4 },
  });
  for (const workers of [1, 2, 3]) {
    const fromNpy = await run(`npy-${workers}`, npy, workers);
    const fromPng = await run(`png-${workers}`, folder, workers);
    assert.equal(fromPng.steps, 10);
    assert.deepEqual(Buffer.from(fromPng.weights.buffer), Buffer.from(fromNpy.weights.buffer), `${workers} workers`);
    if (workers === 2) {
      const again = await run('png-2-again', folder, 2);
      assert.deepEqual(Buffer.from(again.weights.buffer), Buffer.from(fromPng.weights.buffer), 'rerun');
    }
  }
});
