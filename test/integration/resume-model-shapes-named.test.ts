// Resuming with a model that differs from the checkpoint's (its module edited in place, so the
// config is the same) is refused naming both shapes, the model's and the checkpoint's; the
// workers that reported the model's layout are stopped.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tagProcesses } from '../helpers/leftover-processes.ts';
import { CLASSES, FEATURES, tempDir, writeDataset } from '../helpers/train-fixture.ts';

test('a model whose hidden layer changed from 8 to 16 units: both shapes are named', async () => {
  const dir = tempDir('resume-shapes');
  const model = path.join(dir, 'model.mjs');
  const writeModel = (units: number) =>
    fs.writeFileSync(
      model,
      `export default (tf) => tf.sequential({ layers: [
  tf.layers.dense({ inputShape: [${FEATURES}], units: ${units}, activation: 'tanh' }),
  tf.layers.dense({ units: ${CLASSES}, activation: 'softmax' }),
] });
`,
    );
  writeModel(8);
  const file = writeConfigFile(dir, 'shapes', {
    model: { module: model },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 24, 'onehot', 4) },
    training: { batchSize: 8, steps: 2 },
    optimizer: { name: 'sgd' },
    devices: { simulate: 2, backend: 'cpu' },
    runDir: path.join(dir, 'run'),
  });
  const first = await runCliAsync(['train', file]);
  assert.equal(first.code, 0, first.stderr);

  writeModel(16);
  const procs = tagProcesses();
  const r = await runCliAsync(['train', file, '--resume', '--set', 'training.steps=4'], { env: procs.env });
  assert.equal(r.code, 2, `${r.stdout}\n${r.stderr}`);
  assert.match(
    r.stderr,
    /^error E_CONFIG: the model does not fit checkpoint .*step-2: variable \S+ has shape \[6, 16\] in the model but \[6, 8\] in the checkpoint$/m,
  );
  assert.doesNotMatch(r.stderr, /^\s+at /m, 'a stack trace');
  assert.deepEqual(procs.alive(), [], 'processes of the run are still alive');
});
