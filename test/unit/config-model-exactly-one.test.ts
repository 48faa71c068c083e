import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { validateConfig } from '../../src/config/validate.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const dir = tempDir('config-model');
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
fs.writeFileSync(path.join(dir, 'model.json'), '{}\n');
const withModel = (model: unknown) => {
  const raw: Record<string, unknown> = {
    loss: 'meanSquaredError',
    data: { train: { type: 'mnist' } },
    training: { batchSize: 4 },
    optimizer: { name: 'sgd' },
  };
  if (model !== undefined) raw.model = model;
  return () => validateConfig(raw, { configPath: null, cwd: dir });
};

test('none of module, json and net is an error', () => {
  assert.throws(withModel({}), { code: 'E_CONFIG', keyPath: 'model', message: /none of model\.module, model\.json and model\.net is set/ });
  assert.throws(withModel(undefined), { code: 'E_CONFIG', keyPath: 'model', hint: /exactly one/ });
  assert.throws(withModel({ module: null, json: null }), { keyPath: 'model', message: /none of/ });
});

test('both module and json is an error', () => {
  assert.throws(withModel({ module: 'model.js', json: 'model.json' }), {
    code: 'E_CONFIG',
    keyPath: 'model',
    message: /both model\.module and model\.json are set/,
  });
});

test('module and net, or all three, is an error', () => {
  assert.throws(withModel({ module: 'model.js', net: 'lenet' }), { keyPath: 'model', message: /both model\.module and model\.net are set/ });
  assert.throws(withModel({ module: 'model.js', json: 'model.json', net: 'lenet' }), {
    keyPath: 'model',
    message: /model\.module and model\.json and model\.net are all set/,
  });
});

test('exactly one is accepted, the others are null', () => {
  assert.deepEqual(withModel({ module: 'model.js' })().model, { module: path.join(dir, 'model.js'), json: null, net: null, customLayers: null });
  assert.deepEqual(withModel({ json: 'model.json', module: null })().model, {
    module: null,
    json: path.join(dir, 'model.json'),
    net: null,
    customLayers: null,
  });
  assert.equal(withModel({ net: 'lenet', classes: 10 })().model.net?.name, 'lenet');
});
