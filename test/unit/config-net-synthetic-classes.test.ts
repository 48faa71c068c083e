// A network by name trained on synthetic rows takes its classes from them: model.classes left out
// is data.train.classes (10 when that is left out too), not an E_CONFIG asking for it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateConfig } from '../../src/config/validate.ts';
import { netSpec } from '../../src/coordinator/engine/net-spec.ts';

const config = (train: Record<string, unknown>, model: Record<string, unknown> = { net: 'lenet' }) =>
  validateConfig(
    {
      model,
      loss: 'categoricalCrossentropy',
      data: { train: { type: 'synthetic', shape: [28, 28, 1], ...train } },
      training: { batchSize: 4 },
      optimizer: { name: 'sgd' },
    },
    { configPath: null, cwd: process.cwd() },
  );

test("model.classes left out: synthetic rows' classes", () => {
  assert.equal(netSpec(config({ classes: 7 }), null)!.classes, 7);
  assert.equal(netSpec(config({}), null)!.classes, 10);
});

test('model.classes given: it, whatever the rows say', () => {
  assert.equal(netSpec(config({ classes: 7 }, { net: 'lenet', classes: 3 }), null)!.classes, 3);
});
