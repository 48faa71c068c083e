// A shard cut short in its last record (in the data, or inside the 12-byte header) is named:
// shard, record number, and how many bytes are missing; the records before it were fine.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { scanShard } from '../../src/data/shards/index-scan.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-truncated');
const keys = { image: 'image/encoded', label: 'image/class/label' };

test('a shard cut in its last record, in the data or in the header, names record 2', () => {
  const file = path.join(dir, 'a.tfrecord');
  writeShards([{ path: file, records: [0, 1, 2].map((i) => digitRecord(Uint8Array.from([i, 1, 2, 3]), i)) }]);
  const whole = fs.readFileSync(file);
  const recordBytes = whole.length / 3;
  const cut = (keep: number, re: RegExp) => {
    fs.writeFileSync(file, whole.subarray(0, keep));
    assert.throws(
      () => scanShard(file, keep, keys),
      (err: Error & { code?: string }) => err.code === 'E_DATA' && re.test(err.message),
    );
  };
  const start = `^shard ${file} record 2 \\(at byte ${2 * recordBytes}\\): truncated: `;
  cut(whole.length - 3, new RegExp(`${start}its \\d+ data bytes and CRC end at byte ${whole.length}, past the shard's end at ${whole.length - 3}$`));
  cut(2 * recordBytes + 5, new RegExp(`${start}5 of the 12 header bytes \\(length and its CRC\\) are there$`));
});
