// An empty shard holds no records and a GZIP-compressed one is not read: each is refused naming
// the file (and, for gzip, that compression is not supported), not read as damaged records.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { scanShard } from '../../src/data/shards/index-scan.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-empty-gzip');
const keys = { image: 'image/encoded', label: 'image/class/label' };

test('an empty shard is named', () => {
  const file = path.join(dir, 'empty.tfrecord');
  fs.writeFileSync(file, '');
  assert.throws(() => scanShard(file, 0, keys), { code: 'E_DATA', message: `shard ${file} is empty (0 bytes): it holds no records` });
});

test('a gzip-compressed shard is refused as compressed', () => {
  const plain = path.join(dir, 'plain.tfrecord');
  writeShards([{ path: plain, records: [digitRecord(Uint8Array.from([1]), 0)] }]);
  const file = path.join(dir, 'a.tfrecord.gz');
  fs.writeFileSync(file, gzipSync(fs.readFileSync(plain)));
  assert.throws(
    () => scanShard(file, fs.statSync(file).size, keys),
    (err: Error & { code?: string }) => {
      assert.equal(err.code, 'E_DATA');
      assert.match(err.message, /is GZIP-compressed .*: compressed TFRecord files are not supported$/);
      assert.ok(err.message.startsWith(`shard ${file} `));
      return true;
    },
  );
});
