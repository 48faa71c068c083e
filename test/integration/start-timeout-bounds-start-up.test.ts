// A worker's start-up has its own deadline, reliability.startTimeout, apart from the step's: a
// worker whose model takes longer to build than stepTimeout (its module blocks while building)
// starts and trains when startTimeout allows it, and a startTimeout shorter than that start-up
// fails it in init, naming reliability.startTimeout in the hint.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { MgpuError } from '../../src/shared/errors.ts';
import { buildConfig, CLASSES, FEATURES, silent, tempDir, writeDataset } from '../helpers/train-fixture.ts';

const dir = tempDir('start-timeout');
// Seconds the model's module blocks while building: longer than the step deadline below, so a
// start-up held to stepTimeout is stalled whatever the machine's load.
const BUILD_S = 3.5;
const model = path.join(dir, 'slow-build.mjs');
fs.writeFileSync(
  model,
  `export default function build(tf) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${BUILD_S * 1000});
  return tf.sequential({ layers: [tf.layers.dense({ inputShape: [${FEATURES}], units: ${CLASSES}, activation: 'softmax' })] });
}
`,
);
const raw = (name: string, reliability: Record<string, unknown>) => ({
  name,
  model: { module: model },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 20, 'onehot', 1) },
  training: { batchSize: 10, steps: 1, seed: 1 },
  optimizer: { name: 'sgd', learningRate: 0.1 },
  reliability: { onWorkerFailure: 'abort', ...reliability },
});

test('a start-up slower than stepTimeout but within startTimeout: the worker is not killed, the run trains', { timeout: 120_000 }, async () => {
  const cfg = buildConfig(dir, raw('slow-start', { stepTimeout: 3, startTimeout: 60 }), 1);
  await train(cfg, silent);
  assert.ok(fs.existsSync(path.join(cfg.runDir, 'final', 'model.json')), 'the run saved no model');
});

test('a start-up slower than startTimeout: the worker is killed in init, the hint names reliability.startTimeout', { timeout: 120_000 }, async () => {
  const cfg = buildConfig(dir, raw('too-slow-start', { stepTimeout: 600, startTimeout: 1 }), 1);
  const err = await train(cfg, silent).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof MgpuError, `the run did not fail: ${String(err)}`);
  assert.equal(err.code, 'E_WORKER');
  assert.match(err.message, /worker rank 0 \(GPU 0\) failed in init: stalled: no reply after \d+\.\d s \(deadline 1\.0 s\)/);
  assert.match(err.hint ?? '', /the worker was killed; see reliability\.startTimeout/);
});
