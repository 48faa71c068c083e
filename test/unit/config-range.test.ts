import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { validateConfig } from '../../src/config/validate.ts';
import { configChecks, minimalConfig } from '../helpers/config.ts';
import { BACKEND_NAMES, LOSS_NAMES, OPTIMIZER_NAMES } from '../../src/config/types.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const dir = tempDir('config-range');
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
const base = minimalConfig;
const { rejects } = configChecks({ configPath: null, cwd: dir });

test('batchSize must be an integer >= 1', () => {
  rejects(base({ training: { batchSize: 0 } }), 'training.batchSize', /expected a positive integer, got 0 \(number\)/);
  rejects(base({ training: { batchSize: 2.5 } }), 'training.batchSize', /got 2\.5/);
});

test('learningRate must be finite and > 0', () => {
  for (const lr of [0, -1, Infinity, NaN]) {
    rejects(base({ optimizer: { name: 'sgd', learningRate: lr } }), 'optimizer.learningRate', /expected a finite number > 0/);
  }
});

test('betas are in [0, 1)', () => {
  rejects(base({ optimizer: { name: 'adam', beta1: 1 } }), 'optimizer.beta1', /expected a number in \[0, 1\), got 1/);
  rejects(base({ optimizer: { name: 'adamw', beta2: -0.1 } }), 'optimizer.beta2', /\[0, 1\)/);
});

test('epochs and steps are positive integers, and not both set', () => {
  rejects(base({ training: { batchSize: 8, epochs: 0 } }), 'training.epochs', /expected a positive integer or null/);
  rejects(base({ training: { batchSize: 8, steps: -5 } }), 'training.steps', /expected a positive integer or null/);
  rejects(base({ training: { batchSize: 8, epochs: 2, steps: 100 } }), 'training', /epochs and steps are both set/);
});

test('exponential and cosine schedules need decaySteps > 0; other schedules reject it', () => {
  rejects(base({ schedule: { name: 'exponential' } }), 'schedule.decaySteps', /missing; expected a positive integer/);
  rejects(base({ schedule: { name: 'cosine', decaySteps: 0 } }), 'schedule.decaySteps', /got 0/);
  rejects(base({ schedule: { decaySteps: 100 } }), 'schedule.decaySteps', /not used by schedule 'constant'/);
});

test('devices: simulate is an integer >= 0; gpus are distinct ids', () => {
  rejects(base({ devices: { simulate: -1 } }), 'devices.simulate', /expected an integer >= 0, got -1/);
  rejects(base({ devices: { gpus: [0, 1, 0] } }), 'devices.gpus[2]', /GPU 0 is listed twice/);
  rejects(base({ devices: { gpus: [-1] } }), 'devices.gpus[0]', /expected a GPU id/);
  rejects(base({ devices: { gpus: [] } }), 'devices.gpus', /non-empty list/);
});

test('enums list the allowed values', () => {
  // The allowed values come from the one list each enum is defined by.
  const listed = (names: readonly string[]) => names.map((n) => `'${n}'`).join(', ');
  rejects(base({ optimizer: { name: 'adamax' } }), 'optimizer.name', new RegExp(`expected one of ${listed(OPTIMIZER_NAMES)}, got "adamax"`));
  rejects(base({ devices: { backend: 'cuda' } }), 'devices.backend', new RegExp(`one of ${listed(BACKEND_NAMES)}`));
  rejects(base({ loss: 'hinge' }), 'loss', new RegExp(`one of ${listed(LOSS_NAMES)}`));
  assert.ok(BACKEND_NAMES.includes('webgpu'));
  assert.equal(LOSS_NAMES.length, 4);
  rejects(
    base({ data: { train: { type: 'parquet' } } }),
    'data.train.type',
    /one of 'npy', 'csv', 'module', 'mnist', 'images', 'synthetic', 'tfrecord', 'webdataset', got "parquet"/,
  );
});

test('mnist splits stay within the 10,000 digits', () => {
  rejects(base({ data: { train: { type: 'mnist', offset: 9000, count: 2000 } } }), 'data.train.count', /offset 9000 \+ count 2000 is past the 10000/);
  rejects(base({ data: { train: { type: 'mnist', count: 0 } } }), 'data.train.count', /positive integer/);
  rejects(base({ data: { train: { type: 'mnist', offset: 10000 } } }), 'data.train.offset', /integer in \[0, 9999\]/);
  const c = validateConfig(base({ data: { train: { type: 'mnist', offset: 9000 } } }), { configPath: null, cwd: dir });
  assert.equal(c.data.train.type === 'mnist' && c.data.train.count, 1000);
});

test('mnist labels must fit the loss', () => {
  rejects(base({ data: { train: { type: 'mnist', labels: 'index' } } }), 'data.train.labels', /'index' labels do not fit loss 'categoricalCrossentropy'/);
  rejects(base({ loss: 'sparseCategoricalCrossentropy' }), 'data.train.labels', /'onehot' labels do not fit/);
});

test('the run name is letters, digits, ".", "_" and "-"', () => {
  rejects(base({ name: 'my run' }), 'name', /got "my run"/);
  rejects(base({ name: '..' }), 'name', /expected a name/);
  assert.throws(() => validateConfig(base(), { configPath: path.join(dir, 'my exp.yaml'), cwd: dir }), {
    keyPath: 'name',
    message: /config file's name "my exp"/,
  });
});

test('settings that would be silently ignored are errors', () => {
  rejects(base({ eval: { every: 100 } }), 'eval.every', /no data\.eval/);
  rejects(base({ devices: { simulate: 2, gpus: [0, 1] } }), 'devices.gpus', /simulate/);
  rejects(base({ training: { batchSize: 200, dropLast: true }, data: { train: { type: 'mnist', count: 100 } } }), 'training.batchSize', /dropLast/);
});
