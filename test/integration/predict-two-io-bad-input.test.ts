// Predict's inputs that do not fit a model with two inputs (image, meta) are refused with a
// usage error that lists the model's inputs and a hint: a missing input, a name the model does
// not have, one unnamed file for two inputs; inputs whose row counts differ are a data error that
// names both files, found before any worker starts. Nothing is written.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { predict } from '../../src/api.ts';
import { train } from '../../src/coordinator/train.ts';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { writeTwoIoData, writeTwoIoModel } from '../helpers/two-io-model.ts';

const dir = tempDir('predict-two-io-bad');
const raw = {
  name: 'predict-two-io-bad',
  model: { module: writeTwoIoModel(dir) },
  loss: { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError' },
  data: { train: { type: 'npy', ...writeTwoIoData(dir, 'train', 8, 1) } },
  training: { batchSize: 4, steps: 1 },
  optimizer: { name: 'sgd' },
};
const cfg = buildConfig(dir, raw, 1);
const rows = writeTwoIoData(dir, 'new', 6, 2).features;
const short = writeTwoIoData(dir, 'short', 5, 3).features;
let trained: Promise<string> | null = null;
const model = () => (trained ??= train(cfg, silent).then((r) => path.dirname(r.modelPath!)));
const output = path.join(dir, 'preds');

async function refused(input: Record<string, string> | string, code: string, message: RegExp, hint: RegExp): Promise<void> {
  await assert.rejects(predict(cfg, { checkpoint: await model(), input, output, print: false }), (e: Error & { code?: string; hint?: string }) => {
    assert.equal(e.code, code, e.message);
    assert.match(e.message, message);
    assert.match(e.hint ?? '', hint);
    return true;
  });
  assert.ok(!fs.existsSync(output), 'nothing written');
}

const names = /its inputs: 'image', 'meta'/;
const hint = /name each of the model's inputs once: input: \{ image: '<file>\.npy', meta: '<file>\.npy' \}/;

test('an input left out', async () => {
  await refused(
    { image: rows.image },
    'E_USAGE',
    new RegExp(`^predict\\(\\): input: no file for the model's input 'meta' \\(given image: ${rows.image}; ${names.source}\\)$`),
    hint,
  );
});

test('a name the model does not have', async () => {
  await refused(
    { image: rows.image, meta: rows.meta, extra: rows.meta },
    'E_USAGE',
    new RegExp(`^predict\\(\\): input\\.extra \\(${rows.meta}\\): the model has no input 'extra' \\(${names.source}\\)$`),
    hint,
  );
});

test('one unnamed file for two inputs', async () => {
  await refused(rows.image, 'E_USAGE', new RegExp(`^predict\\(\\): input: the model has 2 inputs \\('image', 'meta'\\) but ${rows.image} is one array$`), hint);
});

test('row counts that differ name both files, before any worker starts', async () => {
  // No trained model needed: the row counts are compared first.
  await assert.rejects(
    predict(cfg, { checkpoint: path.join(dir, 'no-model-here'), input: { image: rows.image, meta: short.meta }, print: false }),
    (e: Error & { code?: string }) => {
      assert.equal(e.code, 'E_DATA', e.message);
      assert.equal(
        e.message,
        `predict(): input: meta=${short.meta} has 5 rows but image=${rows.image} has 6; every input needs one row per sample, matched by index`,
      );
      return true;
    },
  );
});

test('the command names inputs as it takes them: --input name=file', async () => {
  const file = writeConfigFile(dir, 'predict', { ...raw, devices: { simulate: 1, backend: 'cpu' }, runDir: cfg.runDir });
  const r = await runCliAsync([
    'predict',
    file,
    '--checkpoint',
    await model(),
    '--input',
    `image=${rows.image}`,
    '--input',
    `mta=${rows.meta}`,
    '--output',
    output,
  ]);
  assert.equal(r.code, 2, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, new RegExp(`^error E_USAGE: --input mta=${rows.meta}: the model has no input 'mta' \\(its inputs: 'image', 'meta'\\)$`, 'm'));
  assert.match(r.stderr, /hint: name each of the model's inputs once: --input image=<file>\.npy --input meta=<file>\.npy/);
  assert.doesNotMatch(r.stderr, /^\s+at /m, 'a stack trace');
  assert.ok(!fs.existsSync(output), 'nothing written');
});
