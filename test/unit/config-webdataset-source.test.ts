// data.<split> type: webdataset: its defaults (label cls, labelOffset 0, image as a list, the image
// decoding defaults of type: images), the resolved config written back out validating to the same
// source, each bad key named by its key path (shards that match no file among them), its labels
// being classes (a regression loss is refused), and files: as the shards' name (shards: its other).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { serializeConfig } from '../../src/config/load.ts';
import { validateConfig } from '../../src/config/validate.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-webdataset-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.mkdirSync(path.join(dir, 'shards'));
for (const k of [0, 1]) fs.writeFileSync(path.join(dir, 'shards', `train-00000${k}.tar`), '');
fs.writeFileSync(path.join(dir, 'model.mjs'), '');
const configPath = path.join(dir, 'exp.yaml');

const config = (train: Record<string, unknown>, more: Record<string, unknown> = {}, loss = 'sparseCategoricalCrossentropy') =>
  validateConfig(
    { model: { module: './model.mjs' }, loss, data: { train, ...more }, training: { batchSize: 2 }, optimizer: { name: 'sgd' } },
    { configPath, cwd: dir },
  );
const base = { type: 'webdataset', shards: './shards/train-{000000..000001}.tar', image: 'jpg', size: [32, 24] };

test('defaults: label cls, labelOffset 0, image a list, the image decoding defaults; shards resolved against the config', () => {
  assert.deepEqual(config(base).data.train, {
    type: 'webdataset',
    shards: path.join(dir, 'shards/train-{000000..000001}.tar'),
    image: ['jpg'],
    label: 'cls',
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
    { ...base, image: ['png', 'jpg'], label: 'cls', labelOffset: -1, channels: 1, augment: { flip: 'horizontal' } },
    { eval: { ...base, shards: './shards/train-000001.tar' } },
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
  bad({ ...base, shards: './shards/valid-*.tar' }, 'data.train.shards', /no file in .* matches valid-\*\.tar/);
  bad({ ...base, shards: './shards/train-{000000..000002}.tar' }, 'data.train.shards', /shard .*train-000002\.tar not found \(of /);
  bad({ ...base, image: 'gif' }, 'data.train.image', /an image extension \(jpg, jpeg, png, webp\) or a list of them/);
  bad({ ...base, image: [] }, 'data.train.image', /an image extension/);
  bad({ ...base, image: ['jpg', 'jpg'] }, 'data.train.image', /lists an extension twice/);
  bad({ ...base, label: 'txt' }, 'data.train.label', /cls/);
  bad({ ...base, files: './shards/*' }, 'data.train.shards', /is another name for files:, which is given too/);
  bad(base, 'data.eval.augment', /data.eval is never augmented/, { eval: { ...base, augment: { flip: 'horizontal' } } });
  bad(base, 'loss', /data.train is 'webdataset', whose labels are classes \(class indices\)/, {}, 'meanSquaredError');
});

test("files: names the shards as a tfrecord source's does; shards: is its other name, to the same source", () => {
  const { shards, ...rest } = base;
  assert.deepEqual(config({ ...rest, files: shards }).data.train, config(base).data.train);
  assert.throws(
    () => config(rest),
    (e: Error & { keyPath?: string }) => e.keyPath === 'data.train.files' && /missing/.test(e.message),
  );
});
