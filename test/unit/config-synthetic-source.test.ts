// A synthetic data source (type: synthetic): its defaults, what it refuses (a shape that is no
// list of sizes, more values than it holds, sample weights, labels that do not fit the loss),
// and the rows it makes: the shape asked for, values in [0, 1), labels of its classes, the same
// rows every time.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadDataset } from '../../src/data/dataset.ts';
import { configChecks, minimalConfig } from '../helpers/config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-synthetic-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.js'), 'export default () => null;\n');
const { validate, rejects } = configChecks({ configPath: null, cwd: dir });
const synthetic = (src: Record<string, unknown>, loss = 'categoricalCrossentropy') => minimalConfig({ loss, data: { train: { type: 'synthetic', ...src } } });

test('its defaults: 1024 samples of 10 classes, one-hot labels', () => {
  assert.deepEqual(validate(synthetic({ shape: [32, 32, 3] })).data.train, {
    type: 'synthetic',
    shape: [32, 32, 3],
    count: 1024,
    classes: 10,
    labels: 'onehot',
  });
});

test('a shape that is not a list of positive sizes, a split past 1 GiB, sample weights, labels that do not fit the loss: refused at their key', () => {
  rejects(synthetic({}), 'data.train.shape', /missing/);
  rejects(synthetic({ shape: [28, 0] }), 'data.train.shape', /expected a non-empty list of positive integers, the shape of one sample/);
  rejects(synthetic({ shape: [] }), 'data.train.shape', /expected a non-empty list of positive integers/);
  rejects(
    synthetic({ shape: [224, 224, 3], count: 2000 }),
    'data.train.count',
    /^data\.train\.count: 2000 samples of shape \[224, 224, 3\] are 301,056,000 values, more than the 268,435,456 \(1 GiB\) a synthetic split holds$/,
    /^lower count: the rows are reused from epoch to epoch/,
  );
  rejects(synthetic({ shape: [4], weights: 'w.npy' }), 'data.train.weights', /sample weights are not read from a 'synthetic' source/);
  rejects(synthetic({ shape: [4], labels: 'index' }), 'data.train.labels', /'index' labels do not fit loss 'categoricalCrossentropy'/);
  rejects(synthetic({ shape: [4], labels: 'sparse' }), 'data.train.labels', /expected one of 'onehot', 'index'/);
  assert.equal(validate(synthetic({ shape: [4], labels: 'index' }, 'sparseCategoricalCrossentropy')).data.train.type, 'synthetic');
});

test('its rows: [count, ...shape] in [0, 1), labels of its classes, the same each time', async () => {
  const src = validate(synthetic({ shape: [3, 2], count: 50, classes: 4 })).data.train;
  const a = await loadDataset(src, 'data.train');
  assert.equal(a.count, 50);
  const x = a.features.toArray();
  const y = a.labels.toArray();
  assert.deepEqual([x.dtype, x.shape, y.dtype, y.shape], ['float32', [50, 3, 2], 'float32', [50, 4]]);
  assert.ok(x.data.every((v) => v >= 0 && v < 1));
  assert.ok(new Set(x.data).size > 250, 'the values vary');
  for (let i = 0; i < 50; i++) assert.deepEqual([...y.data.subarray(i * 4, i * 4 + 4)].sort(), [0, 0, 0, 1], `row ${i} is not one-hot`);
  const b = await loadDataset(src, 'data.train');
  assert.deepEqual(b.features.toArray().data, x.data);
  const index = await loadDataset(
    validate(synthetic({ shape: [3, 2], count: 50, classes: 4, labels: 'index' }, 'sparseCategoricalCrossentropy')).data.train,
    'data.train',
  );
  const classes = index.labels.toArray();
  assert.deepEqual([classes.dtype, classes.shape], ['int32', [50]]);
  assert.deepEqual(new Set(classes.data), new Set([0, 1, 2, 3]));
});
