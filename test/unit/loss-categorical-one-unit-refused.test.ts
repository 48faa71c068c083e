// A categorical loss on an output whose last dimension is one unit (a 1-unit head, what a
// one-class image folder gives) is refused before step 0: E_CONFIG (exit 2) naming the output and
// the loss, with the hint of binaryCrossentropy or one unit per class. Without it every worker's
// first step failed in tfjs's oneHot ("depth must be >=2") and the run was retried as a crash.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { outputLosses } from '../../src/coordinator/engine/model-io.ts';
import type { LossSpec } from '../../src/config/types.ts';
import { ConfigError } from '../../src/shared/errors.ts';
import type { ModelLayout } from '../../src/shared/layout.ts';

const layout = (outputs: ModelLayout['outputs']) => ({ outputs }) as ModelLayout;
const refused = (loss: LossSpec, outputs: ModelLayout['outputs'], keyPath: string, message: RegExp) =>
  assert.throws(
    () => outputLosses({ loss, lossWeights: null }, layout(outputs)),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError, String(e));
      assert.equal(e.code, 'E_CONFIG');
      assert.equal(e.exitCode, 2);
      assert.equal(e.keyPath, keyPath);
      assert.match(e.message, message);
      assert.match(e.hint ?? '', /sigmoid unit with binaryCrossentropy.*one unit per class/);
      return true;
    },
  );

test('sparseCategoricalCrossentropy or categoricalCrossentropy on a 1-unit output is refused, naming output and loss', () => {
  const one = [{ name: 'dense_1', shape: [null, 1] }];
  refused(
    'sparseCategoricalCrossentropy',
    one,
    'loss',
    /^loss: sparseCategoricalCrossentropy needs at least 2 classes, but the model's output 'dense_1' has 1 unit \(shape \[null, 1\]\)/,
  );
  refused('categoricalCrossentropy', one, 'loss', /categoricalCrossentropy needs at least 2 classes, but the model's output 'dense_1' has 1 unit/);
});

test("with a loss per output, the key path is that output's loss", () => {
  const two = [
    { name: 'box', shape: [null, 4] },
    { name: 'kind', shape: [null, 1] },
  ];
  refused({ box: 'meanSquaredError', kind: 'sparseCategoricalCrossentropy' }, two, 'loss.kind', /output 'kind' has 1 unit/);
});

test('one unit is accepted for binaryCrossentropy and meanSquaredError, two for the categorical losses', () => {
  for (const loss of ['binaryCrossentropy', 'meanSquaredError'] as const)
    assert.equal(outputLosses({ loss, lossWeights: null }, layout([{ name: 'p', shape: [null, 1] }])).length, 1);
  for (const loss of ['sparseCategoricalCrossentropy', 'categoricalCrossentropy'] as const)
    assert.equal(outputLosses({ loss, lossWeights: null }, layout([{ name: 'p', shape: [null, 2] }])).length, 1);
});
