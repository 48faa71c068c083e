// A config that does not fit a model with two inputs (image, meta) and two outputs (class, box),
// found once the workers have built it and before any step: each error names the missing or extra
// input or output and the files given, with a hint. (Predict's inputs: predict-two-io-bad-input.test.ts.)
// A monitor of one output's figure is checked against the outputs the model has.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { writeTwoIoData, writeTwoIoModel } from '../helpers/two-io-model.ts';

const dir = tempDir('bad-two-io');
const files = writeTwoIoData(dir, 'train', 12, 1);
const base = {
  model: { module: writeTwoIoModel(dir) },
  loss: { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError' },
  data: { train: { type: 'npy', ...files } },
  training: { batchSize: 4, steps: 1 },
  optimizer: { name: 'sgd' },
};
let k = 0;
async function fails(over: Record<string, unknown>, code: string, message: RegExp, keyPath?: string): Promise<void> {
  const cfg = buildConfig(dir, { ...base, name: `bad-${k++}`, ...over }, 1);
  await assert.rejects(train(cfg, silent), (e: Error & { code?: string; keyPath?: string; hint?: string }) => {
    assert.equal(e.code, code, e.message);
    assert.match(e.message, message);
    if (keyPath) assert.equal(e.keyPath, keyPath);
    assert.ok(e.hint, `a hint for: ${e.message}`);
    return true;
  });
  assert.ok(!fs.existsSync(cfg.runDir), 'nothing written');
}

test('a missing or an extra input, and one file for two inputs', async () => {
  await fails(
    { data: { train: { type: 'npy', features: { image: files.features.image }, labels: files.labels } } },
    'E_DATA',
    new RegExp(`^data\\.train\\.features: no file for the model's input 'meta' \\(given image: ${files.features.image}; its inputs: 'image', 'meta'\\)`),
  );
  await fails(
    { data: { train: { type: 'npy', features: { ...files.features, extra: files.features.meta }, labels: files.labels } } },
    'E_DATA',
    /^data\.train\.features\.extra: the model has no input 'extra' \(.*-meta\.npy; its inputs: 'image', 'meta'\)/,
  );
  await fails(
    { data: { train: { type: 'npy', features: files.features.image, labels: files.labels } } },
    'E_DATA',
    /^data\.train\.features: the model has 2 inputs \('image', 'meta'\) but .*-image\.npy is one array/,
  );
});

test('labels, losses and loss weights must name the outputs', async () => {
  await fails(
    { data: { train: { type: 'npy', features: files.features, labels: { class: files.labels.class } } } },
    'E_DATA',
    /^data\.train\.labels: no file for the model's output 'box'/,
  );
  await fails(
    { loss: { class: 'sparseCategoricalCrossentropy' } },
    'E_CONFIG',
    /^loss: names no loss for the model's output 'box' \(its outputs: 'class', 'box'\)/,
    'loss',
  );
  await fails(
    { loss: { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError', boxes: 'meanSquaredError' } },
    'E_CONFIG',
    /the model has no output 'boxes'/,
    'loss.boxes',
  );
  await fails({ lossWeights: { clas: 2 } }, 'E_CONFIG', /the model has no output 'clas' \(its outputs: 'class', 'box'\)/, 'lossWeights.clas');
});

test('a monitor of one output is checked against the model once built: a model with one output has none', async () => {
  const one = writeDataset(dir, 'one', 12, 'index', 3);
  const cfg = buildConfig(
    dir,
    {
      name: 'monitor-one-output',
      model: { module: writeModelModule(dir, 'mlp') },
      loss: 'sparseCategoricalCrossentropy', // one loss name: the model may have several outputs, known once built
      data: { train: one, eval: one },
      training: { batchSize: 4, steps: 1 },
      optimizer: { name: 'sgd' },
      checkpoint: { best: { monitor: 'eval.accuracy.class' } },
    },
    1,
  );
  assert.equal(cfg.checkpoint.best?.mode, 'max');
  await assert.rejects(train(cfg, silent), (e: Error & { code?: string; keyPath?: string; hint?: string }) => {
    assert.equal(e.code, 'E_CONFIG', e.message);
    assert.equal(e.keyPath, 'checkpoint.best.monitor');
    assert.match(e.message, /expected one of 'eval\.loss', 'eval\.accuracy', 'eval\.top_k', 'eval\.mae', got "eval\.accuracy\.class"/);
    assert.ok(e.hint);
    return true;
  });
  assert.ok(!fs.existsSync(cfg.runDir), 'nothing written');
});
