// A YAML merge key (`<<: *base`) copies the anchored mapping's keys, and a key written beside it
// wins, as YAML 1.1 defines it; unresolved it would be the unknown key "<<".
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';

test('<<: *base merges the anchored mapping and the keys beside it override it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-merge-'));
  fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
  const file = path.join(dir, 'exp.yaml');
  fs.writeFileSync(
    file,
    `model: { module: model.js }
loss: meanSquaredError
data:
  train: &mnist { type: mnist, offset: 0, count: 100 }
  eval:
    <<: *mnist
    offset: 100
training: { batchSize: 8 }
optimizer: { name: sgd, learningRate: 0.1 }
`,
  );
  const config = await loadConfig(file, [], dir);
  assert.deepEqual(config.data.train, { type: 'mnist', offset: 0, count: 100, labels: 'onehot' });
  assert.deepEqual(config.data.eval, { type: 'mnist', offset: 100, count: 100, labels: 'onehot' });
  fs.rmSync(dir, { recursive: true });
});
