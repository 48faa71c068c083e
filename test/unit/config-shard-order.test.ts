// data.<split>.order of a shard source: random by default (no openShards), shards with openShards
// 4 unless given; openShards without order: shards, an order on data.eval, an unknown order and
// openShards 0 each refused naming the key; the resolved config reads back the same.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { configToRaw } from '../../src/config/load.ts';
import { validateConfig } from '../../src/config/validate.ts';
import { ConfigError } from '../../src/shared/errors.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-shard-order-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.mjs'), '');
fs.writeFileSync(path.join(dir, 'train-0.tar'), '');
fs.writeFileSync(path.join(dir, 'train-0.tfrecord'), '');
const configPath = path.join(dir, 'exp.yaml');
const config = (data: Record<string, unknown>) =>
  validateConfig(
    { model: { module: './model.mjs' }, loss: 'sparseCategoricalCrossentropy', data, training: { batchSize: 2 }, optimizer: { name: 'sgd' } },
    { configPath, cwd: dir },
  );
const tfrecord = { type: 'tfrecord', files: './train-0.tfrecord', image: 'image/encoded', label: 'image/class/label', size: [8, 8] };
const webdataset = { type: 'webdataset', shards: './train-0.tar', image: 'jpg', size: [8, 8] };
const refused = (data: Record<string, unknown>, key: RegExp, why: RegExp) =>
  assert.throws(
    () => config(data),
    (e: ConfigError) => {
      assert.equal(e.code, 'E_CONFIG');
      assert.match(e.message, key);
      assert.match(e.message, why);
      return true;
    },
  );

test('random by default; shards with openShards 4 unless given; for tfrecord and webdataset', () => {
  const source = (d: Record<string, unknown>) => config({ train: d }).data.train as { order: string; openShards?: number };
  assert.deepEqual([source(tfrecord).order, source(tfrecord).openShards], ['random', undefined]);
  assert.deepEqual([source({ ...tfrecord, order: 'shards' }).order, source({ ...tfrecord, order: 'shards' }).openShards], ['shards', 4]);
  assert.equal(source({ ...webdataset, order: 'shards', openShards: 16 }).openShards, 16);
});

test('the resolved config reads back to the same order', () => {
  const c = config({ train: { ...webdataset, order: 'shards', openShards: 3 } });
  const again = validateConfig(configToRaw(c), { configPath, cwd: dir });
  assert.deepEqual(again.data.train, c.data.train);
});

test('refused: openShards without order: shards, an order on data.eval, an unknown order, openShards 0', () => {
  refused({ train: { ...tfrecord, openShards: 2 } }, /^data\.train\.openShards: /, /applies to order: shards only/);
  refused({ train: tfrecord, eval: { ...tfrecord, order: 'shards' } }, /^data\.eval\.order: /, /only data\.train has an order/);
  refused({ train: { ...webdataset, order: 'shuffled' } }, /^data\.train\.order: /, /random.*shards/);
  refused({ train: { ...tfrecord, order: 'shards', openShards: 0 } }, /^data\.train\.openShards: /, /integer/);
});
