// A model with no trainable weights (every layer frozen) is refused before the first step:
// E_MODEL, exit 2, naming the module, with no worker restarted and nothing written to the run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset } from '../helpers/train-fixture.ts';

test('a model whose every layer is frozen: E_MODEL before any step, exit 2, no retries', async (t) => {
  const dir = tempDir('no-trainable');
  const model = path.join(dir, 'frozen-all.mjs');
  fs.writeFileSync(
    model,
    `export default (tf) => tf.sequential({ layers: [tf.layers.dense({ inputShape: [6], units: 3, activation: 'softmax', trainable: false })] });\n`,
  );
  const runDir = path.join(dir, 'run');
  const file = writeConfigFile(dir, 'exp', {
    model: { module: model },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 24, 'onehot', 5) },
    training: { batchSize: 8, steps: 3 },
    optimizer: { name: 'sgd' },
  });
  const t0 = Date.now();
  const r = await runCliAsync(['train', file, '--simulate', '2', '--backend', 'cpu', '--run-dir', runDir]);
  t.diagnostic(`exit ${r.code} after ${((Date.now() - t0) / 1000).toFixed(1)} s: ${r.stderr.trim()}`);
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    new RegExp(
      `^error E_MODEL: ${model.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the model has no trainable weights \\(21 non-trainable parameters\\): there is nothing to train\n  hint: `,
      'm',
    ),
  );
  assert.doesNotMatch(r.stdout + r.stderr, /restart|E_WORKER|variableGrads/);
  assert.ok(!fs.existsSync(path.join(runDir, 'metrics.jsonl')), 'the run wrote metrics');
  assert.ok(!fs.existsSync(path.join(runDir, 'checkpoints')), 'the run wrote a checkpoint');
});
