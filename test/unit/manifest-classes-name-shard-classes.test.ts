// The classes of shards written by `mgpu-train shards` come from the shards.json beside them,
// when it lists the first shard of the source (it describes these shards); any other manifest,
// none, or URL shards leave the classes to be named by their numbers (null here).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { manifestClasses } from '../../src/data/manifest-classes.ts';
import type { DataSource } from '../../src/config/types.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-manifest-classes-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
for (const f of ['train-00000-of-00002.tfrecord', 'train-00001-of-00002.tfrecord', 'other.tfrecord']) fs.writeFileSync(path.join(dir, f), '');
const manifest = (over: Record<string, unknown> = {}) =>
  fs.writeFileSync(
    path.join(dir, 'shards.json'),
    JSON.stringify({
      createdBy: 'mgpu-train shards',
      version: 1,
      format: 'tfrecord',
      classes: ['cat', 'dog'],
      shards: [{ file: 'train-00000-of-00002.tfrecord' }, { file: 'train-00001-of-00002.tfrecord' }],
      ...over,
    }),
  );
const tfrecord = (files: string) =>
  ({
    type: 'tfrecord',
    files,
    image: 'image/encoded',
    label: 'image/class/label',
    labelOffset: 0,
    order: 'random',
    size: [8, 8],
    channels: 1,
  }) as unknown as DataSource;

test("the classes of the shards.json that lists the source's shards", () => {
  manifest();
  const got = manifestClasses(tfrecord(path.join(dir, 'train-*.tfrecord')), 'data.train');
  assert.ok(got);
  assert.deepEqual(got.classes, ['cat', 'dog']);
  assert.equal(got.from, path.join(dir, 'shards.json'));
  const tar = {
    ...(tfrecord('') as object),
    type: 'webdataset',
    shards: path.join(dir, 'train-*.tfrecord'),
    image: ['png'],
    label: 'cls',
  } as unknown as DataSource;
  assert.deepEqual(manifestClasses(tar, 'data.train')?.classes, ['cat', 'dog']);
});

test('none: a manifest of other shards, of another writer, unreadable, absent; URL shards; x / y features', () => {
  manifest();
  assert.equal(manifestClasses(tfrecord(path.join(dir, 'other.tfrecord')), 'data.train'), null);
  manifest({ createdBy: 'someone else' });
  assert.equal(manifestClasses(tfrecord(path.join(dir, 'train-*.tfrecord')), 'data.train'), null);
  manifest({ classes: [] });
  assert.equal(manifestClasses(tfrecord(path.join(dir, 'train-*.tfrecord')), 'data.train'), null);
  fs.writeFileSync(path.join(dir, 'shards.json'), '{ not json');
  assert.equal(manifestClasses(tfrecord(path.join(dir, 'train-*.tfrecord')), 'data.train'), null);
  fs.rmSync(path.join(dir, 'shards.json'));
  assert.equal(manifestClasses(tfrecord(path.join(dir, 'train-*.tfrecord')), 'data.train'), null);
  manifest();
  assert.equal(manifestClasses(tfrecord('https://example.com/train-{00000..00001}-of-00002.tfrecord'), 'data.train'), null);
  const features = { type: 'tfrecord', files: path.join(dir, 'train-*.tfrecord'), x: {}, y: {} } as unknown as DataSource;
  assert.equal(manifestClasses(features, 'data.train'), null);
});
