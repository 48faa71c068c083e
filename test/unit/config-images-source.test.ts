// data.<split> type: images: its defaults, each bad key with its key path, the loss it needs
// (classes), and the resolved config written back out validating to the same source.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { serializeConfig } from '../../src/config/load.ts';
import { validateConfig } from '../../src/config/validate.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-images-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.mkdirSync(path.join(dir, 'photos'));
fs.writeFileSync(path.join(dir, 'model.mjs'), '');
fs.writeFileSync(path.join(dir, 'list.csv'), '');
const configPath = path.join(dir, 'exp.yaml');

const config = (train: Record<string, unknown>, more: Record<string, unknown> = {}) =>
  validateConfig(
    {
      model: { module: './model.mjs' },
      loss: 'sparseCategoricalCrossentropy',
      data: { train, ...more },
      training: { batchSize: 2 },
      optimizer: { name: 'sgd' },
    },
    { configPath, cwd: dir },
  );
const base = { type: 'images', dir: './photos', size: [32, 24] };

test('defaults: 3 channels, stretch, rescale to [0, 1], no normalize, no augment; data.threads null, data.prefetch 2', () => {
  const c = config(base);
  assert.deepEqual(c.data.train, {
    type: 'images',
    dir: path.join(dir, 'photos'),
    list: null,
    size: [32, 24],
    channels: 3,
    resize: 'stretch',
    rescale: 'unit',
    normalize: null,
    augment: null,
    orientation: 'stored',
  });
  assert.equal(c.data.threads, null);
  assert.equal(c.data.prefetch, 2);
});

test('every key set validates back to the same config from config.yaml', () => {
  const c = config(
    {
      ...base,
      channels: 1,
      resize: 'pad',
      rescale: 'none',
      normalize: { mean: [127], std: [64] },
      augment: { flip: 'horizontal', randomResizedCrop: { scale: [0.5, 1] }, brightness: 0.2, contrast: 0.3 },
    },
    { threads: 3, prefetch: 4, eval: { type: 'images', list: './list.csv', size: [32, 24] } }, // data.eval.augment is refused
  );
  assert.deepEqual(c.data.train.type === 'images' && c.data.train.augment?.randomResizedCrop, { scale: [0.5, 1], ratio: [3 / 4, 4 / 3] });
  const again = validateConfig(parse(serializeConfig(c)), { configPath, cwd: dir });
  assert.deepEqual(again.data, c.data);
  const cropped = config({ ...base, augment: { crop: { padding: 4 } } }); // crop excludes randomResizedCrop
  assert.deepEqual(validateConfig(parse(serializeConfig(cropped)), { configPath, cwd: dir }).data, cropped.data);
});

const bad = (train: Record<string, unknown>, key: string, message: RegExp, more: Record<string, unknown> = {}) =>
  assert.throws(
    () => config(train, more),
    (e: Error & { keyPath?: string; exitCode?: number }) => e.keyPath === key && message.test(e.message) && e.exitCode === 2,
    `${key} ${message}`,
  );

test('each bad key is named by its key path', () => {
  bad({ ...base, list: './list.csv' }, 'data.train', /sets both dir and list/);
  bad({ type: 'images', size: [2, 2] }, 'data.train', /needs dir or list/);
  bad({ ...base, dir: './nowhere' }, 'data.train.dir', /folder not found/);
  bad({ ...base, dir: './list.csv' }, 'data.train.dir', /is a file, not a folder/);
  bad({ type: 'images', dir: './photos' }, 'data.train.size', /missing; expected a list \[height, width\]/);
  bad({ ...base, size: [32] }, 'data.train.size', /expected a list \[height, width\] of positive integers/);
  bad({ ...base, channels: 4 }, 'data.train.channels', /expected 1 \(grey\) or 3 \(RGB\), got 4/);
  bad({ ...base, resize: 'fit' }, 'data.train.resize', /'stretch', 'crop', 'pad'/);
  bad({ ...base, normalize: { mean: [0.5], std: [1, 1, 1] } }, 'data.train.normalize.mean', /a list of 3 numbers/);
  bad({ ...base, normalize: { mean: [0, 0, 0], std: [1, 0, 1] } }, 'data.train.normalize.std[1]', /a finite number > 0, got 0/);
  bad({ ...base, augment: { flip: 'vertical' } }, 'data.train.augment.flip', /'horizontal'/);
  bad({ ...base, augment: { crop: { padding: -1 } } }, 'data.train.augment.crop.padding', /an integer in \[0, 1024\]/);
  bad({ ...base, augment: { crop: { padding: 4 }, randomResizedCrop: {} } }, 'data.train.augment.crop', /so is randomResizedCrop/);
  bad({ ...base, augment: { randomResizedCrop: { scale: [0.9, 0.1] } } }, 'data.train.augment.randomResizedCrop.scale', /low <= high/);
  bad({ ...base, augment: { brightness: 2 } }, 'data.train.augment.brightness', /a number in \[0, 1\]/);
  bad({ ...base, augment: { rotate: 10 } }, 'data.train.augment.rotate', /unknown key/);
  bad(base, 'data.threads', /a positive integer or null/, { threads: 0 });
});

test('the labels are classes: sparse and categorical cross-entropy take them, a regression loss is refused at loss', () => {
  const withLoss = (loss: string) =>
    validateConfig(
      { model: { module: './model.mjs' }, loss, data: { train: base }, training: { batchSize: 2 }, optimizer: { name: 'sgd' } },
      { configPath, cwd: dir },
    );
  withLoss('sparseCategoricalCrossentropy');
  withLoss('categoricalCrossentropy');
  assert.throws(
    () => withLoss('meanSquaredError'),
    (e: Error & { keyPath?: string }) => e.keyPath === 'loss' && /data.train is 'images', whose labels are classes/.test(e.message),
  );
});
