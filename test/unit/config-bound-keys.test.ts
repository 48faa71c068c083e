// The bounds of issue 17's keys: data.<split>.maxSamples (a data module's samples) is an integer
// >= 1, default 1,000,000; reliability.maxSkippedFraction is a number in [0, 1], default 0.5.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { validateConfig } from '../../src/config/validate.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-bounds-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
fs.writeFileSync(path.join(dir, 'samples.mjs'), 'export default function* () {}\n');
type Raw = Record<string, unknown>;
const raw = (train: Raw, reliability: Raw = {}): Raw => ({
  model: { module: 'model.js' },
  loss: 'categoricalCrossentropy',
  data: { train: { type: 'module', module: 'samples.mjs', ...train } },
  training: { batchSize: 8 },
  optimizer: { name: 'sgd' },
  reliability,
});
const validate = (r: Raw) => validateConfig(r, { configPath: null, cwd: dir });

test('maxSamples: default 1000000, an integer >= 1', () => {
  assert.deepEqual(validate(raw({})).data.train, { type: 'module', module: path.join(dir, 'samples.mjs'), maxSamples: 1_000_000 });
  assert.equal((validate(raw({ maxSamples: 20 })).data.train as { maxSamples: number }).maxSamples, 20);
  for (const bad of [0, 2.5, 'many'])
    assert.throws(() => validate(raw({ maxSamples: bad })), { code: 'E_CONFIG', keyPath: 'data.train.maxSamples', message: /expected a positive integer/ });
});

test('maxSkippedFraction: default 0.5, a number in [0, 1]', () => {
  assert.equal(validate(raw({})).reliability.maxSkippedFraction, 0.5);
  assert.equal(validate(raw({}, { maxSkippedFraction: 1 })).reliability.maxSkippedFraction, 1);
  assert.equal(validate(raw({}, { maxSkippedFraction: 0 })).reliability.maxSkippedFraction, 0);
  for (const bad of [-0.1, 1.5, NaN])
    assert.throws(() => validate(raw({}, { maxSkippedFraction: bad })), {
      code: 'E_CONFIG',
      keyPath: 'reliability.maxSkippedFraction',
      message: /expected a number in \[0, 1\]/,
    });
});
