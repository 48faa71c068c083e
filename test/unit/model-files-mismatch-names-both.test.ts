// Weights read into a model they do not fit (eval or predict of a model directory made for
// another model) are refused naming both shapes: the file's and the model's.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { ModelLayout } from '../../src/shared/layout.ts';
import { readFlatWeights, writeLayersModel } from '../../src/shared/model-files.ts';

const layout = (units: number, name = 'dense_Dense1/kernel'): ModelLayout => ({
  variables: [{ name, shape: [6, units], dtype: 'float32', trainable: true }],
  saveOrder: [0],
  inputShape: [null, 6],
  outputShape: [null, units],
  inputs: [{ name: 'in', shape: [null, 6] }],
  outputs: [{ name: 'out', shape: [null, units] }],
  topology: {},
});

test("a weight of another shape names the file's shape and the model's", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-mismatch-'));
  writeLayersModel(path.join(dir, 'm'), layout(8), new Float32Array(48));
  const file = path.join(dir, 'm', 'model.json');
  assert.throws(() => readFlatWeights(file, layout(16)), {
    code: 'E_MODEL',
    message: `${file}: weight dense_Dense1/kernel (float32 [6,8]) does not match the model: the model's is float32 [6,16]`,
  });
  assert.throws(() => readFlatWeights(file, layout(8, 'other/kernel')), { message: /does not match the model: the model has no weight of that name$/ });
  fs.rmSync(dir, { recursive: true });
});
