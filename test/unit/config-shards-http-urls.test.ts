// Shards given as http(s):// URLs in data.<split>.files (tfrecord) and .shards (webdataset): kept
// as they are (not resolved against the config's folder), nothing requested at validation; a glob
// in a URL refused with the brace range to write instead; data.<split>.http validated with each
// bad key named (a typo with the nearest known key), and absent unless given.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../../src/shared/errors.ts';
import { validateConfig } from '../../src/config/validate.ts';
import { shardFiles } from '../../src/shared/shard-files.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-shards-http-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.mjs'), '');
const configPath = path.join(dir, 'exp.yaml');
const config = (train: Record<string, unknown>) =>
  validateConfig(
    { model: { module: './model.mjs' }, loss: 'sparseCategoricalCrossentropy', data: { train }, training: { batchSize: 2 }, optimizer: { name: 'sgd' } },
    { configPath, cwd: dir },
  );
const tfrecord = { type: 'tfrecord', image: 'image/encoded', label: 'image/class/label', size: [8, 8] };
const webdataset = { type: 'webdataset', image: 'jpg', size: [8, 8] };

test('URLs kept as they are; their brace ranges expand, sorted; a presigned query is no glob', () => {
  const files = 'https://bucket.example/data/train-{00000..00002}-of-00003?X-Amz-Signature=ab';
  const train = config({ ...tfrecord, files }).data.train;
  assert.equal((train as { files: string }).files, files);
  assert.equal((train as { http?: unknown }).http, undefined, 'no http key unless given');
  assert.deepEqual(shardFiles('http://h:8080/b-{1..2}.tar', 'data.train.shards'), ['http://h:8080/b-1.tar', 'http://h:8080/b-2.tar']);
  assert.equal((config({ ...webdataset, shards: 'http://h/w-{0..1}.tar' }).data.train as { shards: string }).shards, 'http://h/w-{0..1}.tar');
});

test('a glob in a URL is refused, naming the key and the brace range to write', () => {
  assert.throws(
    () => config({ ...webdataset, shards: 'https://h/train-*.tar' }),
    (e: ConfigError) => {
      assert.equal(e.code, 'E_CONFIG');
      assert.match(e.message, /data\.train\.shards: https:\/\/h\/train-\*\.tar is a URL with a glob \(\*\): a URL's shards cannot be listed/);
      assert.match(e.hint ?? '', /brace range instead: https:\/\/host\/train-\{00000\.\.00099\}\.tar/);
      return true;
    },
  );
});

test('data.<split>.http: its keys checked, a typo named with the nearest key', () => {
  const files = 'http://h/t-{0..1}';
  assert.deepEqual((config({ ...tfrecord, files, http: { inFlight: 3 } }).data.train as { http: unknown }).http, { inFlight: 3, retries: 5, timeoutMs: 30000 });
  assert.throws(
    () => config({ ...tfrecord, files, http: { inFligt: 3 } }),
    (e: ConfigError) => {
      assert.equal(e.message, 'data.train.http.inFligt: unknown key');
      assert.match(e.hint ?? '', /did you mean 'inFlight'\?/);
      return true;
    },
  );
  assert.throws(() => config({ ...tfrecord, files, http: { inFlight: 0 } }), /data\.train\.http\.inFlight: expected an integer in \[1, 256\], got 0/);
  assert.throws(() => config({ ...tfrecord, files, http: { retries: -1 } }), /data\.train\.http\.retries: expected an integer in \[0, 20\]/);
  assert.throws(() => config({ ...webdataset, shards: files, http: 8 }), /data\.train\.http: expected a mapping of inFlight, retries, timeoutMs, got 8/);
});
