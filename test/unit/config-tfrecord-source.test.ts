// data.<split> type: tfrecord: its defaults (labelOffset 0 and the image decoding defaults of
// type: images), the resolved config written back out validating to the same source, each bad
// key named by its key path (files that match no shard among them), data.eval.augment refused,
// and its labels being classes (a regression loss is refused).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { serializeConfig } from '../../src/config/load.ts';
import { validateConfig } from '../../src/config/validate.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-tfrecord-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.mkdirSync(path.join(dir, 'shards'));
for (const k of [0, 1]) fs.writeFileSync(path.join(dir, 'shards', `train-0000${k}-of-00002`), '');
fs.writeFileSync(path.join(dir, 'model.mjs'), '');
const configPath = path.join(dir, 'exp.yaml');

const config = (train: Record<string, unknown>, more: Record<string, unknown> = {}, loss = 'sparseCategoricalCrossentropy') =>
  validateConfig(
    { model: { module: './model.mjs' }, loss, data: { train, ...more }, training: { batchSize: 2 }, optimizer: { name: 'sgd' } },
    { configPath, cwd: dir },
  );
const base = { type: 'tfrecord', files: './shards/train-{00000..00001}-of-00002', image: 'image/encoded', label: 'image/class/label', size: [32, 24] };

test('defaults: labelOffset 0, and the image decoding defaults; files resolved against the config', () => {
  assert.deepEqual(config(base).data.train, {
    type: 'tfrecord',
    files: path.join(dir, 'shards/train-{00000..00001}-of-00002'),
    image: 'image/encoded',
    label: 'image/class/label',
    labelOffset: 0,
    order: 'random',
    size: [32, 24],
    channels: 3,
    resize: 'stretch',
    rescale: 'unit',
    normalize: null,
    augment: null,
    orientation: 'stored',
  });
});

test('every key set validates back to the same config from config.yaml', () => {
  const c = config(
    {
      ...base,
      labelOffset: -1,
      order: 'shards',
      openShards: 8,
      channels: 1,
      resize: 'crop',
      normalize: { mean: [0.5], std: [0.25] },
      augment: { flip: 'horizontal', brightness: 0.1 },
    },
    { eval: { ...base, files: './shards/train-00001-of-00002' } },
  );
  assert.deepEqual(validateConfig(parse(serializeConfig(c)), { configPath, cwd: dir }).data, c.data);
});

const bad = (train: Record<string, unknown>, key: string, message: RegExp, more: Record<string, unknown> = {}, loss?: string) =>
  assert.throws(
    () => config(train, more, loss),
    (e: Error & { keyPath?: string; exitCode?: number }) => e.keyPath === key && message.test(e.message) && e.exitCode === 2,
    `${key} ${message}`,
  );

test('each bad key is named by its key path', () => {
  bad({ ...base, files: './shards/valid-*' }, 'data.train.files', /no file in .* matches valid-\*/);
  bad({ ...base, files: './shards/train-{00000..00002}-of-00002' }, 'data.train.files', /shard .*train-00002-of-00002 not found \(of /);
  const { image: _image, ...noImage } = base;
  bad(noImage, 'data.train.image', /missing; expected a non-empty string/);
  bad({ ...base, label: '' }, 'data.train.label', /expected a non-empty string/);
  bad({ ...base, labelOffset: 0.5 }, 'data.train.labelOffset', /an integer/);
  bad({ ...base, dir: './shards' }, 'data.train.dir', /unknown key/);
  bad({ ...base, channels: 2 }, 'data.train.channels', /1 \(grey\) or 3 \(RGB\)/);
  bad(base, 'data.eval.augment', /data.eval is never augmented/, { eval: { ...base, augment: { flip: 'horizontal' } } });
  bad(base, 'loss', /data.train is 'tfrecord', whose labels are classes \(class indices\)/, {}, 'meanSquaredError');
});

const features = { type: 'tfrecord', files: './shards/train-*', x: { pixels: { key: 'x/p', shape: [4, 2] } }, y: { value: { key: 'y', shape: [] } } };

test('x / y: the model names to { key, shape }, round trip; any loss; the image keys are not taken with them', () => {
  const c = config(features, {}, 'meanSquaredError');
  assert.deepEqual(c.data.train, { ...features, files: path.join(dir, 'shards/train-*') });
  assert.deepEqual(validateConfig(parse(serializeConfig(c)), { configPath, cwd: dir }).data, c.data);
  bad({ ...features, image: 'image/encoded' }, 'data.train.image', /unknown key/);
  bad({ ...features, y: undefined }, 'data.train.y', /a mapping of the model's output names to \{ key, shape \}/);
  bad({ ...features, x: {} }, 'data.train.x', /a mapping of the model's input names/);
  bad({ ...features, x: { pixels: { key: 'x/p', shape: [0] } } }, 'data.train.x.pixels.shape', /a list of positive integers/);
  bad({ ...features, x: { pixels: { key: 'x/p', shape: [2], dtype: 'float' } } }, 'data.train.x.pixels.dtype', /unknown key/);
});
