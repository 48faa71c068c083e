// `loss` as a custom module: `{ module: ./huber.ts }` for every output, or `{ <output>: { module } }`
// beside built-in names; the path is resolved against the config's directory and must exist. A
// mapping whose only key is `module` with a value that is not a built-in name is one loss for
// every output; `{ module: meanSquaredError }` and `{ module: { module: ./x.ts } }` are losses of
// an output named `module`. A custom loss has no classes: class metrics, accuracy monitors,
// class weights and class labels are refused with it, with key paths.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { configToRaw } from '../../src/config/load.ts';
import { isCustomLoss, lossOf, oneLoss } from '../../src/config/loss.ts';
import { validateConfig } from '../../src/config/validate.ts';
import { configChecks, minimalConfig, type Raw } from '../helpers/config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-custom-loss-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
for (const f of ['model.js', 'x.npy', 'y.npy', 'huber.ts', 'box-loss.ts', 'x.csv']) fs.writeFileSync(path.join(dir, f), '');
const base = (over: Raw = {}): Raw =>
  minimalConfig({
    loss: { module: './huber.ts' },
    data: { train: { type: 'npy', features: 'x.npy', labels: 'y.npy' }, eval: { type: 'npy', features: 'x.npy', labels: 'y.npy' } },
    training: { batchSize: 8 },
    optimizer: { name: 'sgd' },
    ...over,
  });
const { validate, rejects } = configChecks({ configPath: path.join(dir, 'exp.yaml'), cwd: '/' });

test('accepted forms: one custom loss for every output, one per output beside built-ins, an output named module', () => {
  const one = validate(base());
  assert.deepEqual(one.loss, { module: path.join(dir, 'huber.ts') });
  assert.ok(isCustomLoss(one.loss));
  assert.deepEqual(oneLoss(one.loss), { module: path.join(dir, 'huber.ts') });
  assert.deepEqual(lossOf(one.loss, 'anything'), { module: path.join(dir, 'huber.ts') });

  const each = validate(base({ loss: { class: 'sparseCategoricalCrossentropy', box: { module: './box-loss.ts' } } }));
  assert.deepEqual(each.loss, { class: 'sparseCategoricalCrossentropy', box: { module: path.join(dir, 'box-loss.ts') } });
  assert.equal(oneLoss(each.loss), null);
  assert.deepEqual(lossOf(each.loss, 'box'), { module: path.join(dir, 'box-loss.ts') });
  assert.equal(lossOf(each.loss, 'nope'), undefined);

  // An output literally named module: a built-in name is not a path, so this is a per-output map.
  const named = validate(base({ loss: { module: 'meanSquaredError' } }));
  assert.deepEqual(named.loss, { module: 'meanSquaredError' });
  assert.equal(oneLoss(named.loss), null);
  assert.equal(lossOf(named.loss, 'module'), 'meanSquaredError');
  const nested = validate(base({ loss: { module: { module: './huber.ts' } } }));
  assert.deepEqual(nested.loss, { module: { module: path.join(dir, 'huber.ts') } });
  assert.equal(oneLoss(nested.loss), null);
  assert.deepEqual(lossOf(nested.loss, 'module'), { module: path.join(dir, 'huber.ts') });

  // The resolved config (written as config.yaml, read back on --resume) keeps each form.
  for (const c of [one, each, named, nested]) assert.deepEqual(validateConfig(configToRaw(c), { configPath: null, cwd: '/' }).loss, c.loss);

  // Regression metrics and custom metric modules suit a custom loss; so does monitoring mae.
  validate(base({ metrics: ['mae', 'rmse'], checkpoint: { best: { monitor: 'eval.mae' } } }));
});

test('refused forms, each under its key path', () => {
  rejects(base({ loss: { module: './missing.ts' } }), 'loss.module', /file not found: .*missing\.ts/);
  rejects(base({ loss: { box: { module: './missing.ts' } } }), 'loss.box.module', /file not found/);
  rejects(base({ loss: { box: { module: './box-loss.ts', delta: 2 } } }), 'loss.box.delta', /unknown key/i);
  rejects(base({ loss: { box: {} } }), 'loss.box', /a loss: .*\{ module: \.\/my-loss\.ts \}/);
  rejects(
    base({ loss: { box: './box-loss.ts' } }),
    'loss.box',
    /expected one of 'categoricalCrossentropy'.*or \{ module: \.\/my-loss\.ts \}.*got "\.\/box-loss\.ts"/,
  );
  rejects(base({ loss: './huber.ts' }), 'loss', /or \{ module: \.\/my-loss\.ts \} \(a custom loss\), got "\.\/huber\.ts"/);
  rejects(base({ loss: { module: './huber.ts', box: 'meanSquaredError' } }), 'loss.module', /got "\.\/huber\.ts"/);
  rejects(base({ loss: { module: 3 } }), 'loss.module', /got 3/);
});

test('a custom loss has no classes: class metrics, accuracy monitors, class weights and class labels are refused', () => {
  rejects(base({ metrics: ['accuracy'] }), 'metrics[0]', /'accuracy' needs classes, but loss is a custom module \(.*huber\.ts\)/);
  rejects(base({ metrics: ['mae', 'auc'] }), 'metrics[1]', /'auc' needs classes/);
  rejects(base({ metrics: ['topK'] }), 'metrics[0]', /'topK' needs classes/);
  rejects(
    base({ checkpoint: { best: { monitor: 'eval.accuracy' } } }),
    'checkpoint.best.monitor',
    /eval\.accuracy is not measured with loss custom \(.*huber\.ts\)/,
  );
  rejects(
    base({ training: { batchSize: 8, classWeights: [1, 2] } }),
    'training.classWeights',
    /loss is a custom module \(.*huber\.ts\): it has no classes to weigh/,
  );
  rejects(
    base({ data: { train: { type: 'csv', path: 'x.csv', label: 'y', labelType: 'class' } } }),
    'data.train.labelType',
    /'class' gives class indices, which loss custom \(.*huber\.ts\) does not take/,
  );
  // With several outputs, a class metric applies to the outputs that have classes.
  const c = validate(base({ loss: { class: 'sparseCategoricalCrossentropy', box: { module: './box-loss.ts' } }, metrics: ['accuracy', 'f1', 'mae'] }));
  assert.equal(c.metrics?.length, 3);
  rejects(
    base({ loss: { a: { module: './huber.ts' }, b: { module: './box-loss.ts' } }, metrics: ['f1'] }),
    'metrics[0]',
    /'f1' suits no output of the model \('a' custom \(.*huber\.ts\), 'b' custom \(.*box-loss\.ts\)\)/,
  );
  rejects(
    base({ loss: { class: 'sparseCategoricalCrossentropy', box: { module: './box-loss.ts' } }, training: { batchSize: 8, classWeights: [1] } }),
    'training.classWeights',
    /one loss per output/,
  );
});
