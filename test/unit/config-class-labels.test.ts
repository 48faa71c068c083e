// labelType: class and data.classes at the config's edge: each mistake is E_CONFIG naming its
// key path, with a hint. Class indices are sparseCategoricalCrossentropy's labels; eval names
// need a training mapping; data.classes needs a source that reads names.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { validateConfig } from '../../src/config/validate.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-classes-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
for (const f of ['model.mjs', 'x.npy', 'y.npy', 'data.csv']) fs.writeFileSync(path.join(dir, f), '');

const named = { type: 'csv', path: './data.csv', label: 'y', labelType: 'class' };
const npy = { type: 'npy', features: './x.npy', labels: './y.npy' };
const config = (data: Record<string, unknown>, loss = 'sparseCategoricalCrossentropy') =>
  validateConfig(
    {
      model: { module: './model.mjs' },
      loss,
      data,
      training: { batchSize: 8 },
      optimizer: { name: 'sgd' },
    },
    { configPath: path.join(dir, 'exp.yaml'), cwd: dir },
  );

test('accepted: labelType class, with and without data.classes; labelType still defaults to index', () => {
  assert.equal(config({ train: named }).data.classes, null);
  assert.deepEqual(config({ train: named, eval: named, classes: ['b', 'a'] }).data.classes, ['b', 'a']);
  assert.deepEqual(config({ train: npy, eval: named, classes: ['1', '2'] }).data.classes, ['1', '2']);
  assert.equal((config({ train: { type: 'csv', path: './data.csv', label: 'y' } }).data.train as { labelType: string }).labelType, 'index');
});

test('each bad class-label config names its key path, with a hint', () => {
  const refused = (data: Record<string, unknown>, keyPath: string, message: RegExp, hint: RegExp, loss?: string) =>
    assert.throws(
      () => config(data, loss),
      (e: Error & { code?: string; keyPath?: string; hint?: string }) => {
        assert.equal(e.code, 'E_CONFIG');
        assert.equal(e.keyPath, keyPath);
        assert.match(e.message, message);
        assert.match(e.hint ?? '', hint);
        return true;
      },
    );
  refused({ train: { ...named, labelType: 'names' } }, 'data.train.labelType', /expected one of 'index', 'float', 'class'/, /./);
  refused(
    { train: named },
    'data.train.labelType',
    /'class' gives class indices, which loss 'categoricalCrossentropy' does not take/,
    /sparseCategoricalCrossentropy/,
    'categoricalCrossentropy',
  );
  refused({ train: named }, 'data.train.labelType', /loss 'meanSquaredError'/, /classification loss/, 'meanSquaredError');
  refused(
    { train: npy, eval: named },
    'data.eval.labelType',
    /data\.train has no class names/,
    /data\.train\.labelType: class, or list the classes in data\.classes/,
  );
  refused({ train: npy, classes: ['a', 'b'] }, 'data.classes', /no data source reads class names/, /labelType: class/);
  refused({ train: named, classes: [] }, 'data.classes', /expected a non-empty list of class names/, /order is that of the model's outputs/);
  refused({ train: named, classes: 'cat' }, 'data.classes', /expected a non-empty list/, /./);
  refused({ train: named, classes: ['a', 3] }, 'data.classes[1]', /expected a class name/, /quote it as the CSV writes it: '3'/);
  refused({ train: named, classes: ['a', 'b', 'a'] }, 'data.classes[2]', /"a" is listed twice \(also data\.classes\[0\]\)/, /list each class once/);
  refused({ train: named, classes: ['a', ' b'] }, 'data.classes[1]', /without spaces around it/, /./);
});
