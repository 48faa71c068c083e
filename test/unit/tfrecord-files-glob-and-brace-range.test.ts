// A tfrecord source's files: a glob, a brace range (zero-padded as its first bound) or list,
// expanded and sorted by code point; the record indexes kept beside the shards never match; a
// shard of a range that is missing is named.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { expandBraces, shardFiles } from '../../src/shared/shard-files.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('tfrecord-files');
const names = ['train-00002-of-00003', 'train-00000-of-00003', 'train-00001-of-00003', 'extra-0', 'train-00000-of-00003.mgpu-index'];
for (const n of names) fs.writeFileSync(path.join(dir, n), '');
const at = (...n: string[]) => n.map((x) => path.join(dir, x));

test('a glob and a brace range give the shards sorted, without the index files', () => {
  const shards = at('train-00000-of-00003', 'train-00001-of-00003', 'train-00002-of-00003');
  assert.deepEqual(shardFiles(path.join(dir, 'train-*'), 'data.train.files'), shards);
  assert.deepEqual(shardFiles(path.join(dir, 'train-{00000..00002}-of-00003'), 'data.train.files'), shards);
  assert.deepEqual(shardFiles(path.join(dir, '{train-00001-of-00003,extra-*}'), 'k'), at('extra-0', 'train-00001-of-00003'));
});

test('braces expand as a shell does', () => {
  assert.deepEqual(expandBraces('a-{8..11}-{x,y}'), ['a-8-x', 'a-8-y', 'a-9-x', 'a-9-y', 'a-10-x', 'a-10-y', 'a-11-x', 'a-11-y']);
  assert.deepEqual(expandBraces('{098..100}'), ['098', '099', '100']);
});

test('a shard of a range that is missing is named; a glob of index files only is refused', () => {
  assert.throws(() => shardFiles(path.join(dir, 'train-{00000..00003}-of-00003'), 'data.train.files'), {
    code: 'E_DATA',
    message: `data.train.files: shard ${path.join(dir, 'train-00003-of-00003')} not found (of ${path.join(dir, 'train-{00000..00003}-of-00003')})`,
  });
  assert.throws(() => shardFiles(path.join(dir, '*.mgpu-index'), 'k'), /matches only record indexes/);
});
