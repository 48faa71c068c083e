// reliability.startTimeout, the seconds a worker may take to start: a finite number > 0, or null;
// absent, it is null, which the start-up reads as stepTimeout (kept null in the resolved config,
// so that a --resume that changes stepTimeout changes the start-up's deadline with it).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { configToRaw } from '../../src/config/load.ts';
import { validateConfig } from '../../src/config/validate.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-start-timeout-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
const validate = (reliability: Record<string, unknown>) =>
  validateConfig(
    {
      model: { module: 'model.js' },
      loss: 'categoricalCrossentropy',
      data: { train: { type: 'mnist' } },
      training: { batchSize: 8 },
      optimizer: { name: 'sgd' },
      reliability,
    },
    { configPath: null, cwd: dir },
  );

test('startTimeout: absent or null is null (stepTimeout at start-up), a number > 0 is kept', () => {
  assert.equal(validate({}).reliability.startTimeout, null);
  assert.equal(validate({ stepTimeout: 15 }).reliability.startTimeout, null);
  assert.equal(validate({ startTimeout: null }).reliability.startTimeout, null);
  assert.equal(validate({ stepTimeout: 15, startTimeout: 120 }).reliability.startTimeout, 120);
  assert.equal(validate({ startTimeout: 0.5 }).reliability.startTimeout, 0.5);
});

test('startTimeout: zero, negative, infinite or not a number is refused naming reliability.startTimeout', () => {
  for (const bad of [0, -5, Infinity, NaN, '60', true])
    assert.throws(() => validate({ startTimeout: bad }), {
      code: 'E_CONFIG',
      keyPath: 'reliability.startTimeout',
      message: /^reliability\.startTimeout: expected a finite number > 0 or null, got /,
    });
});

test('startTimeout: null stays null through the resolved config (a later stepTimeout still applies)', () => {
  const raw = configToRaw(validate({ stepTimeout: 15 })) as { reliability: Record<string, unknown> };
  assert.equal(raw.reliability.startTimeout, null);
});
