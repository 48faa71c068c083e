// A flipped byte in a record's data fails its data CRC, even where the damaged data would still
// decode (a byte of the image's bytes): the error names the shard, the record and its offset.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { scanShard } from '../../src/data/shards/index-scan.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-data');

test('a flipped image byte in record 1 is named as a data CRC mismatch', () => {
  const file = path.join(dir, 'a.tfrecord');
  writeShards([{ path: file, records: [0, 1, 2].map((i) => digitRecord(Uint8Array.from([9, 9, 9, 9]), i)) }]);
  const bytes = fs.readFileSync(file);
  const recordBytes = bytes.length / 3;
  const at = recordBytes + bytes.subarray(recordBytes).indexOf(Buffer.from([9, 9, 9, 9]));
  bytes[at + 1]! ^= 0x40; // inside the image bytes of record 1: the Example still decodes
  fs.writeFileSync(file, bytes);
  assert.throws(
    () => scanShard(file, bytes.length, { image: 'image/encoded', label: 'image/class/label' }),
    (err: Error & { code?: string }) => {
      assert.equal(err.code, 'E_DATA');
      assert.match(
        err.message,
        new RegExp(`^shard ${file} record 1 \\(at byte ${recordBytes}\\): the CRC-32C of its \\d+ data bytes does not match \\(damaged data\\)$`),
      );
      return true;
    },
  );
});
