// `metrics:` at the config's edge: the forms it takes (a name, { name, average }, { module }),
// its defaults, and every refusal naming its key path: an unknown metric, an average on a metric
// that has none, a metric that needs classes with a regression loss, a metric listed twice.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { validateConfig } from '../../src/config/validate.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-metrics-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
for (const f of ['model.mjs', 'x.npy', 'y.npy', 'ex.npy', 'ey.npy', 'metric.mjs', 'hit rate.mjs']) fs.writeFileSync(path.join(dir, f), '');

const config = (metrics: unknown, extra: Record<string, unknown> = {}) =>
  validateConfig(
    {
      model: { module: './model.mjs' },
      loss: 'categoricalCrossentropy',
      data: { train: { type: 'npy', features: './x.npy', labels: './y.npy' }, eval: { type: 'npy', features: './ex.npy', labels: './ey.npy' } },
      training: { batchSize: 8 },
      optimizer: { name: 'sgd' },
      ...(metrics === undefined ? {} : { metrics }),
      ...extra,
    },
    { configPath: path.join(dir, 'exp.yaml'), cwd: dir },
  );

test('no metrics key: null, the shipped eval figures', () => {
  assert.equal(config(undefined).metrics, null);
  assert.equal(config(null).metrics, null);
});

test('names, { name, average } and { module }: in order, average macro by default on precision/recall/f1 only', () => {
  const c = config([
    'accuracy',
    'topK',
    'precision',
    { name: 'recall', average: 'micro' },
    { name: 'f1' },
    'auc',
    'mae',
    'rmse',
    { module: './metric.mjs' },
    { module: './metric.mjs', name: 'again' },
  ]);
  assert.deepEqual(c.metrics, [
    { name: 'accuracy', average: null },
    { name: 'topK', average: null },
    { name: 'precision', average: 'macro' },
    { name: 'recall', average: 'micro' },
    { name: 'f1', average: 'macro' },
    { name: 'auc', average: null },
    { name: 'mae', average: null },
    { name: 'rmse', average: null },
    { module: path.join(dir, 'metric.mjs'), name: 'metric' },
    { module: path.join(dir, 'metric.mjs'), name: 'again' },
  ]);
});

test('macro and micro of one metric may both be listed', () => {
  assert.deepEqual(
    config([
      { name: 'f1', average: 'macro' },
      { name: 'f1', average: 'micro' },
    ]).metrics,
    [
      { name: 'f1', average: 'macro' },
      { name: 'f1', average: 'micro' },
    ],
  );
});

test('an unknown metric name: its key path, and the name that was meant', () => {
  assert.throws(() => config(['accuracy', 'precison']), {
    code: 'E_CONFIG',
    keyPath: 'metrics[1]',
    message: /^metrics\[1\]: unknown metric "precison"/,
    hint: /did you mean 'precision'\?/,
  });
  assert.throws(() => config([{ name: 'roc' }]), { keyPath: 'metrics[0].name', hint: /known metrics: accuracy, topK, precision, recall, f1, auc, mae, rmse/ });
  assert.throws(() => config([3]), { keyPath: 'metrics[0]', message: /expected a metric name/ });
});

test('average on a metric that has none, and a bad average', () => {
  assert.throws(() => config([{ name: 'auc', average: 'macro' }]), {
    keyPath: 'metrics[0].average',
    message: /'auc' has no average/,
    hint: /only precision, recall, f1 take average/,
  });
  assert.throws(() => config(['f1', { name: 'accuracy', average: 'micro' }]), { keyPath: 'metrics[1].average' });
  assert.throws(() => config([{ name: 'f1', average: 'weighted' }]), {
    keyPath: 'metrics[0].average',
    message: /expected one of 'macro', 'micro', got "weighted"/,
  });
});

test('a metric that needs classes with a regression loss; topK with a binary loss', () => {
  for (const name of ['accuracy', 'topK', 'precision', 'recall', 'f1', 'auc']) {
    assert.throws(() => config(['mae', name], { loss: 'meanSquaredError' }), {
      keyPath: 'metrics[1]',
      message: new RegExp(`'${name}' needs classes, but loss is 'meanSquaredError'`),
    });
  }
  assert.deepEqual(config(['mae', 'rmse'], { loss: 'meanSquaredError' }).metrics!.length, 2);
  assert.throws(() => config(['auc', 'topK'], { loss: 'binaryCrossentropy' }), { keyPath: 'metrics[1]', message: /'topK' needs a score per class/ });
  assert.equal(config(['precision', 'auc'], { loss: 'binaryCrossentropy' }).metrics!.length, 2);
});

test('a metric listed twice, and two modules with one name', () => {
  assert.throws(() => config(['precision', { name: 'precision', average: 'macro' }]), {
    keyPath: 'metrics[1]',
    message: /'precision_macro' is listed twice \(also metrics\[0\]\)/,
  });
  assert.throws(() => config([{ module: './metric.mjs' }, { module: './metric.mjs' }]), {
    keyPath: 'metrics[1].name',
    message: /already names the custom metric of metrics\[0\]/,
  });
});

test('a custom metric: a missing file, a base name that cannot name it, unknown keys', () => {
  assert.throws(() => config([{ module: './nope.mjs' }]), { keyPath: 'metrics[0].module', message: /file not found: .*nope\.mjs/ });
  assert.throws(() => config([{ module: './hit rate.mjs' }]), { keyPath: 'metrics[0].name', hint: /set name/ });
  assert.equal((config([{ module: './hit rate.mjs', name: 'hits' }]).metrics![0] as { name: string }).name, 'hits');
  assert.throws(() => config([{ module: './metric.mjs', name: 'a.b' }]), { keyPath: 'metrics[0].name' });
  assert.throws(() => config([{ module: './metric.mjs', average: 'macro' }]), { keyPath: 'metrics[0].average', message: /unknown key/ });
});

test('not a list, an empty list, or no eval data to compute them on', () => {
  assert.throws(() => config('accuracy'), { keyPath: 'metrics', message: /expected a non-empty list/ });
  assert.throws(() => config({ names: ['accuracy'] }), { keyPath: 'metrics', message: /expected a non-empty list/ });
  assert.throws(() => config([]), { keyPath: 'metrics', hint: /remove metrics for the default/ });
  assert.throws(() => config(['accuracy'], { data: { train: { type: 'npy', features: './x.npy', labels: './y.npy' } } }), {
    keyPath: 'metrics',
    message: /no data\.eval/,
  });
  assert.equal(config(['accuracy'], { data: { train: { type: 'npy', features: './x.npy', labels: './y.npy' }, evalFraction: 0.2 } }).metrics!.length, 1);
});
