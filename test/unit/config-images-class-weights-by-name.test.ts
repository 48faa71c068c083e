// With an images source as data.train, training.classWeights is keyed by class name (its folders'
// names), as with a CSV labelType: class: a name is kept for the run to match to its index, and a
// list (by index) is refused, saying where the names come from.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { configChecks, minimalConfig, type Raw } from '../helpers/config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-images-class-weights-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.mkdirSync(path.join(dir, 'imgs'));
fs.writeFileSync(path.join(dir, 'model.js'), '');
const base = (classWeights: unknown): Raw =>
  minimalConfig({
    loss: 'sparseCategoricalCrossentropy',
    data: { train: { type: 'images', dir: 'imgs', size: [8, 8], channels: 1 } },
    training: { batchSize: 4, classWeights },
    optimizer: { name: 'sgd' },
  });
const { validate, rejects } = configChecks({ configPath: null, cwd: dir });

test('an images source takes class weights by folder name', () => {
  assert.deepEqual(validate(base({ cat: 4, dog: 0.5 })).training.classWeights, { cat: 4, dog: 0.5 });
});

test('an images source refuses a list of class weights, naming where its class names come from', () => {
  rejects(base([1, 4]), 'training.classWeights', /is a list, but data\.train reads class names \(its class folders' names, or its list's labels\)/);
});
