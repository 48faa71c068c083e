// A record whose data is not a serialized tf.train.Example (well framed, checksums right) is named
// by shard and record, with what the decoder met.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { scanShard } from '../../src/data/shards/index-scan.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-not-example');

test('record 1 of text bytes is named as not a tf.train.Example', () => {
  const file = path.join(dir, 'a.tfrecord');
  const good = digitRecord(Uint8Array.from([1]), 0);
  writeShards([{ path: file, records: [good, { raw: new TextEncoder().encode('hello, not a protobuf') }, good] }]);
  const size = fs.statSync(file).size;
  assert.throws(
    () => scanShard(file, size, { image: 'image/encoded', label: 'image/class/label' }),
    (err: Error & { code?: string }) => {
      assert.equal(err.code, 'E_DATA');
      assert.match(err.message, new RegExp(`^shard ${file} record 1 \\(at byte \\d+\\): not a tf.train.Example \\(.+\\)$`));
      return true;
    },
  );
});
