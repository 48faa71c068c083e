// A flipped byte in a record's length fails its length CRC: the error names the shard, the record
// number and its byte offset, and says it is the length's checksum (not a misread record, nor a
// "truncated" guess from a garbage length).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { scanShard } from '../../src/data/shards/index-scan.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-length');

test('a flipped length byte in record 2 is named as a length CRC mismatch', () => {
  const file = path.join(dir, 'a.tfrecord');
  writeShards([{ path: file, records: [0, 1, 2, 3].map((i) => digitRecord(Uint8Array.from([i, i, i]), i)) }]);
  const bytes = fs.readFileSync(file);
  const recordBytes = bytes.length / 4;
  bytes[2 * recordBytes]! ^= 0x01; // the low byte of record 2's length: still inside the file
  fs.writeFileSync(file, bytes);
  assert.throws(
    () => scanShard(file, bytes.length, { image: 'image/encoded', label: 'image/class/label' }),
    (err: Error & { code?: string }) => {
      assert.equal(err.code, 'E_DATA');
      assert.equal(
        err.message,
        `shard ${file} record 2 (at byte ${2 * recordBytes}): the CRC-32C of its length does not match (a damaged length, or not a TFRecord file)`,
      );
      return true;
    },
  );
});
