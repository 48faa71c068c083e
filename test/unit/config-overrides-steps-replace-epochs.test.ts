// `--set training.steps=N` on a config that sets training.epochs runs N steps (the override
// replaces the file's epochs), and the other way round, with no `epochs=null` needed. Both set
// by overrides is still the error validation names.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-steps-epochs-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.js'), '');
const file = (name: string, training: string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(
    p,
    `model: { module: model.js }\nloss: categoricalCrossentropy\ndata: { train: { type: mnist, count: 100 } }\ntraining: ${training}\noptimizer: { name: sgd }\n`,
  );
  return p;
};

test("--set training.steps replaces the file's epochs", async () => {
  const c = await loadConfig(file('epochs.yaml', '{ batchSize: 8, epochs: 4 }'), ['training.steps=40'], dir);
  assert.equal(c.training.steps, 40);
  assert.equal(c.training.epochs, null);
});

test("--set training.epochs replaces the file's steps", async () => {
  const c = await loadConfig(file('steps.yaml', '{ batchSize: 8, steps: 1000 }'), ['training.epochs=2'], dir);
  assert.equal(c.training.epochs, 2);
  assert.equal(c.training.steps, null);
});

test('both given as overrides are still an error', async () => {
  await assert.rejects(loadConfig(file('both.yaml', '{ batchSize: 8, epochs: 4 }'), ['training.steps=40', 'training.epochs=2'], dir), {
    code: 'E_CONFIG',
    keyPath: 'training',
    message: /epochs and steps are both set/,
  });
});

test('both in the file are still an error', async () => {
  await assert.rejects(loadConfig(file('file-both.yaml', '{ batchSize: 8, epochs: 4, steps: 40 }'), [], dir), { keyPath: 'training' });
});
