// A NaN or infinite feature in an .npy file is named (sample, feature, file) with exit code 2,
// instead of surfacing as a non-finite loss: the file is mapped, not read at start-up, so the
// rows are checked as their batch is staged, before the step that would train on them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeNpy } from '../../src/shared/npy.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

test('a NaN feature is refused before training, naming the sample and the feature', () => {
  const dir = tempDir('nan-feature');
  const x = new Float32Array(16 * 4).fill(0.5);
  x[9 * 4 + 2] = NaN;
  const y = new Float32Array(16 * 2);
  for (let i = 0; i < 16; i++) y[i * 2] = 1;
  writeNpy(path.join(dir, 'x.npy'), { dtype: 'float32', shape: [16, 4], data: x });
  writeNpy(path.join(dir, 'y.npy'), { dtype: 'float32', shape: [16, 2], data: y });
  fs.writeFileSync(
    path.join(dir, 'model.mjs'),
    "export default (tf) => tf.sequential({ layers: [tf.layers.dense({ inputShape: [4], units: 2, activation: 'softmax' })] });\n",
  );
  fs.writeFileSync(
    path.join(dir, 'exp.yaml'),
    `model: { module: ./model.mjs }
loss: categoricalCrossentropy
data: { train: { type: npy, features: ./x.npy, labels: ./y.npy } }
training: { batchSize: 4 }
optimizer: { name: sgd }
runDir: ${path.join(dir, 'run')}
`,
  );
  const r = runCli(['train', path.join(dir, 'exp.yaml'), '--simulate', '1', '--backend', 'cpu']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /E_DATA: data\.train: feature 2 of sample 9 in .*x\.npy is NaN/);
  assert.ok(!fs.existsSync(path.join(dir, 'run', 'metrics.jsonl')) || fs.readFileSync(path.join(dir, 'run', 'metrics.jsonl'), 'utf8') === '');
});
