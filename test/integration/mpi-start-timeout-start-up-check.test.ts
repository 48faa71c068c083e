// Over several machines the start-up check (every machine's config, code and worker count,
// once its workers have started) waits reliability.startTimeout, as each machine's own worker
// start-up does: a machine whose workers start later than stepTimeout after the other's is
// waited for, not named as stalled, when startTimeout allows it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeConfigFile } from '../helpers/chaos.ts';
import { CLASSES, FEATURES, tempDir, writeDataset } from '../helpers/train-fixture.ts';
import { needMpi, runMpi } from '../helpers/mpi.ts';

const STEP_TIMEOUT_S = 4;
// Rank 1's model blocks this long while building (rank 0's does not): rank 0 reaches the
// start-up check that much sooner, more than stepTimeout, whatever the machine's load.
const BUILD_S = 7;

test("rank 1's workers start later than stepTimeout after rank 0's: within startTimeout the job trains", async (t) => {
  if (!needMpi(t)) return;
  const dir = tempDir('mpi-start-timeout');
  const model = path.join(dir, 'slow-build-on-rank-1.mjs');
  fs.writeFileSync(
    model,
    `export default function build(tf) {
  const ms = Number(process.env.MGPU_TEST_BUILD_MS ?? 0);
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  return tf.sequential({ layers: [tf.layers.dense({ inputShape: [${FEATURES}], units: ${CLASSES}, activation: 'softmax' })] });
}
`,
  );
  const file = writeConfigFile(dir, 'exp', {
    model: { module: model },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 20, 'onehot', 1) },
    training: { batchSize: 10, steps: 2, seed: 1 },
    optimizer: { name: 'sgd', learningRate: 0.1 },
    reliability: { stepTimeout: STEP_TIMEOUT_S, startTimeout: 120, onWorkerFailure: 'abort' },
    devices: { simulate: 1, backend: 'cpu' },
    runDir: path.join(dir, 'run'),
  });
  const r = await runMpi(
    [
      ['train', file],
      ['train', file],
    ],
    [],
    { rankEnv: [{}, { MGPU_TEST_BUILD_MS: String(BUILD_S * 1000) }] },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.ok(fs.existsSync(path.join(dir, 'run', 'final', 'model.json')), 'the job saved no model');
});
