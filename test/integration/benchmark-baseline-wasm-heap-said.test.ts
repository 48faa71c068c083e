// The plain baseline on wasm whose step does not fit the 4 GB heap (one 1x1 convolution of 1024
// filters over 256 images of 64x64: a 4 GB output): said as memory, with a smaller --batch and
// another --backend as the ways out, as soon as the baseline ends, not a bare "Aborted()".
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir } from '../helpers/train-fixture.ts';

test('the baseline out of wasm heap: said as memory, with what to do', async () => {
  const dir = tempDir('benchmark-wasm-heap');
  fs.writeFileSync(
    path.join(dir, 'model.mjs'),
    `export default (tf) => tf.sequential({ layers: [
       tf.layers.conv2d({ inputShape: [64, 64, 3], filters: 1024, kernelSize: 1 }),
       tf.layers.globalAveragePooling2d({}),
       tf.layers.dense({ units: 2, activation: 'softmax' }),
     ] });\n`,
  );
  const config = writeConfigFile(dir, 'exp', {
    model: { module: './model.mjs' },
    loss: 'sparseCategoricalCrossentropy',
    data: { train: { type: 'synthetic', shape: [64, 64, 3], classes: 2, count: 256, labels: 'index' } },
    training: { batchSize: 256, epochs: 1 },
    optimizer: { name: 'sgd' },
  });
  const args = ['benchmark', '--config', config, '--workers', '1', '--batch', '256', '--steps', '2', '--warmup', '1'];
  const r = await runCliAsync([...args, '--simulate', '--backend', 'wasm', '--progress', 'plain'], { cwd: dir, timeoutMs: 300_000 });
  assert.match(
    r.stdout,
    /^plain tfjs: not timed \(the wasm backend (ran out of memory|stopped with its heap at [\d.]+ GB).*; the baseline computes one batch of 256 samples at once in one process: time it with a smaller --batch, or on another --backend/m,
    `exit ${r.code}\n${r.stdout}\n${r.stderr}`,
  );
  assert.doesNotMatch(r.stdout, /plain tfjs failed: Aborted\(\)/);
});
