// A step whose tensors do not fit the wasm heap (one 1x1 convolution of 1024 filters over 256
// images of 64x64: a 4 GB output) fails at once with a message that says the heap ran out, how
// many samples the worker computed at once, and training.accumulateSteps as the way out, not
// the bare "Invalid typed array length" the backend throws.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir } from '../helpers/train-fixture.ts';

test('a wasm worker out of heap: E_WORKER naming the heap, the rows at once and accumulateSteps', async () => {
  const dir = tempDir('wasm-heap');
  fs.writeFileSync(
    path.join(dir, 'model.mjs'),
    `export default (tf) => tf.sequential({ layers: [
       tf.layers.conv2d({ inputShape: [64, 64, 3], filters: 1024, kernelSize: 1 }),
       tf.layers.globalAveragePooling2d({}),
       tf.layers.dense({ units: 2, activation: 'softmax' }),
     ] });\n`,
  );
  const config = writeConfigFile(dir, 'exp.yaml', {
    model: { module: './model.mjs' },
    loss: 'sparseCategoricalCrossentropy',
    data: { train: { type: 'synthetic', shape: [64, 64, 3], classes: 2, count: 256, labels: 'index' } },
    training: { batchSize: 256, epochs: 1 },
    optimizer: { name: 'sgd' },
    devices: { backend: 'wasm' },
  });
  const r = await runCliAsync(['train', config, '--simulate', '1', '--run-dir', path.join(dir, 'run')]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /error E_WORKER: worker rank 0 \(GPU 0\) failed in step 1: the wasm backend ran out of memory \(one wasm process addresses 4 GB at most\): a tensor of 4\.0 GB does not fit/,
  );
  assert.match(r.stderr, /computing 256 samples at once \(a shard of 256 in 1 micro-batch\)/);
  assert.match(r.stderr, /hint: compute fewer samples at once in each worker: raise training\.accumulateSteps/);
});
