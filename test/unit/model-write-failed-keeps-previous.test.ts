// A saved model is replaced only once its new copy is whole: a write that fails part way (here
// a file that cannot be created) leaves the previous copy as it was, still passing its
// checksums, and no half-written copy beside it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { ModelLayout } from '../../src/shared/layout.ts';
import { readFlatWeights, writeLayersModel } from '../../src/shared/model-files.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const layout: ModelLayout = {
  variables: [{ name: 'd/kernel', shape: [2, 3], dtype: 'float32', trainable: true }],
  saveOrder: [0],
  inputShape: [null, 2],
  outputShape: [null, 3],
  inputs: [{ name: 'in', shape: [null, 2] }],
  outputs: [{ name: 'out', shape: [null, 3] }],
  topology: {},
};

test('a failed write keeps the previous model whole', () => {
  const dir = path.join(tempDir('model-write'), 'final');
  const before = new Float32Array([1, 2, 3, 4, 5, 6]);
  writeLayersModel(dir, layout, before, { 'labels.json': '{"classes":["a","b","c"]}' });
  const files = () => fs.readdirSync(dir).map((f) => `${f} ${fs.readFileSync(path.join(dir, f)).toString('base64')}`);
  const saved = files();
  assert.throws(() => writeLayersModel(dir, layout, new Float32Array(6), { 'no-such-dir/labels.json': '{}' }), { code: 'ENOENT' });
  assert.deepEqual(files(), saved);
  assert.deepEqual(fs.readdirSync(path.dirname(dir)), ['final'], 'the temporary directory was left');
  assert.deepEqual(readFlatWeights(path.join(dir, 'model.json'), layout), before); // its checksums still pass
});
