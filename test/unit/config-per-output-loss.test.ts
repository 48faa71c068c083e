// `loss` as one loss per output, `lossWeights`, and npy features/labels as files by name: their
// shapes and values are checked with key paths; one loss per output refuses what reads one
// output (metrics, class weights, monitors other than eval.loss). Which names the model has is
// checked once it is built (test/integration/bad-input-two-io.test.ts).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { validateConfig } from '../../src/shared/config/validate.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-config-per-output-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
for (const f of ['model.js', 'a.npy', 'b.npy', 'c.npy', 'd.npy']) fs.writeFileSync(path.join(dir, f), '');
type Raw = Record<string, unknown>;
const base = (over: Raw = {}): Raw => ({
  model: { module: 'model.js' },
  loss: { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError' },
  data: { train: { type: 'npy', features: { image: 'a.npy', meta: 'b.npy' }, labels: { class: 'c.npy', box: 'd.npy' } } },
  training: { batchSize: 8 },
  optimizer: { name: 'sgd' },
  ...over,
});
const validate = (raw: Raw) => validateConfig(raw, { configPath: null, cwd: dir });
const rejects = (raw: Raw, keyPath: string, message: RegExp) =>
  assert.throws(
    () => validate(raw),
    (e: Error & { code?: string; keyPath?: string }) => {
      assert.equal(e.code, 'E_CONFIG');
      assert.equal(e.keyPath, keyPath, e.message);
      assert.match(e.message, message);
      return true;
    },
  );

test('files by input and output name, a loss per output, loss weights', () => {
  const c = validate(base({ lossWeights: { class: 1, box: 0.5 } }));
  assert.deepEqual(c.loss, { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError' });
  assert.deepEqual(c.lossWeights, { class: 1, box: 0.5 });
  assert.deepEqual(c.data.train.type === 'npy' && c.data.train.features, { image: path.join(dir, 'a.npy'), meta: path.join(dir, 'b.npy') });
  assert.equal(validate(base({ loss: 'meanSquaredError' })).lossWeights, null);
});

test('a loss name, a weight and a file are checked under their name', () => {
  rejects(base({ loss: { class: 'crossEntropy', box: 'meanSquaredError' } }), 'loss.class', /expected one of 'categoricalCrossentropy'.*got "crossEntropy"/);
  rejects(base({ loss: {} }), 'loss', /or a mapping of the model's output names to them/);
  rejects(base({ lossWeights: { box: -1 } }), 'lossWeights.box', /expected a finite number >= 0, got -1/);
  rejects(base({ lossWeights: 0.5 }), 'lossWeights', /a mapping of the model's output names to weights/);
  rejects(
    base({ data: { train: { type: 'npy', features: { image: 'a.npy', meta: 'nope.npy' }, labels: 'c.npy' } } }),
    'data.train.features.meta',
    /file not found: .*nope\.npy/,
  );
  rejects(
    base({ data: { train: { type: 'npy', features: {}, labels: 'c.npy' } } }),
    'data.train.features',
    /a file, or a mapping of the model's input names to files/,
  );
});

test('one loss per output refuses metrics, class weights and monitors of one output', () => {
  rejects(
    base({ data: { train: base().data && (base().data as Raw).train, evalFraction: 0.2 }, metrics: ['accuracy'] }),
    'metrics',
    /loss names one loss per output/,
  );
  rejects(base({ training: { batchSize: 8, classWeights: [1, 2] } }), 'training.classWeights', /loss names one loss per output/);
  rejects(
    base({ data: { train: (base().data as Raw).train, evalFraction: 0.2 }, checkpoint: { best: { monitor: 'eval.accuracy' } } }),
    'checkpoint.best.monitor',
    /eval\.accuracy is not measured with one loss per output/,
  );
  validate(base({ data: { train: (base().data as Raw).train, evalFraction: 0.2 }, checkpoint: { best: { monitor: 'eval.loss' } } }));
});
