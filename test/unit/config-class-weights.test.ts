// training.classWeights and the sources' sample weights in the config: a map by class index or a
// list (read as the map), each weight finite and >= 0, only with a classification loss; a csv
// weight column that is not the label; no weights on a module or mnist source. Each error names
// its key path.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { configChecks, minimalConfig, type Raw } from '../helpers/config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-class-weights-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
for (const f of ['model.js', 'x.npy', 'y.npy', 'w.npy', 'd.csv']) fs.writeFileSync(path.join(dir, f), '');
const base = (training: Raw = {}, over: Raw = {}): Raw =>
  minimalConfig({
    loss: 'sparseCategoricalCrossentropy',
    data: { train: { type: 'npy', features: 'x.npy', labels: 'y.npy' } },
    training: { batchSize: 8, ...training },
    optimizer: { name: 'sgd' },
    ...over,
  });
const { validate, rejects } = configChecks({ configPath: null, cwd: dir });

test('a map by class index, or a list read as that map; absent: null', () => {
  assert.equal(validate(base()).training.classWeights, null);
  assert.deepEqual(validate(base({ classWeights: { 0: 1, 2: 0.5 } })).training.classWeights, { 0: 1, 2: 0.5 });
  assert.deepEqual(validate(base({ classWeights: [2, 0, 1.5] })).training.classWeights, { 0: 2, 1: 0, 2: 1.5 });
  const npy = validate(base({}, { data: { train: { type: 'npy', features: 'x.npy', labels: 'y.npy', weights: 'w.npy' } } })).data.train;
  assert.equal(npy.type === 'npy' && npy.weights, path.join(dir, 'w.npy'));
  const csv = validate(base({}, { data: { train: { type: 'csv', path: 'd.csv', label: 'y', weight: 'w' } } })).data.train;
  assert.equal(csv.type === 'csv' && csv.weight, 'w');
});

test('weights must be finite numbers >= 0', () => {
  rejects(base({ classWeights: { 1: -2 } }), 'training.classWeights.1', /expected a finite number >= 0, got -2/, /0 ignores them/);
  rejects(base({ classWeights: [1, NaN] }), 'training.classWeights[1]', /expected a finite number >= 0, got NaN/);
  rejects(base({ classWeights: { 0: '3' } }), 'training.classWeights.0', /got "3" \(string\)/);
});

test('keys are class indices; an empty map or list, or another shape, is refused', () => {
  rejects(
    base({ classWeights: { cat: 2 } }),
    'training.classWeights.cat',
    /"cat" \(string\) is not a class index/,
    /class names are keys when data\.train reads them \(a csv labelType: class, an images source\)/,
  );
  rejects(base({ classWeights: { '01': 2 } }), 'training.classWeights.01', /not a class index/);
  rejects(base({ classWeights: {} }), 'training.classWeights', /naming at least one class/);
  rejects(base({ classWeights: 2 }), 'training.classWeights', /a mapping \{ <class index>: weight \} or a list/);
});

test('class weights with a regression loss are refused', () => {
  rejects(
    { ...base({ classWeights: [1, 2] }), loss: 'meanSquaredError' },
    'training.classWeights',
    /meanSquaredError.*no classes/,
    /weights file .* or column/,
  );
});

test('a csv weight column is not the label; module and mnist sources take no weights', () => {
  rejects(base({}, { data: { train: { type: 'csv', path: 'd.csv', label: 'y', weight: 'y' } } }), 'data.train.weight', /names the label column "y"/);
  rejects(
    base({}, { data: { train: { type: 'mnist', weights: 'w.npy' } } }),
    'data.train.weights',
    /not read from a 'mnist' source/,
    /npy source .* csv source/,
  );
  rejects(
    base(
      {},
      { data: { train: { type: 'npy', features: 'x.npy', labels: 'y.npy' }, eval: { type: 'npy', features: 'x.npy', labels: 'y.npy', weights: 'nope.npy' } } },
    ),
    'data.eval.weights',
    /file not found: .*nope\.npy/,
  );
});
