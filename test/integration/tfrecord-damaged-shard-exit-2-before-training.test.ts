// A shard with a flipped byte in one record's data, given to `mgpu-train train`, exits 2 before
// training (no metrics.jsonl, no checkpoint) with an E_DATA error naming the split, the shard,
// the record number and its offset, and saying it is the data's checksum.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { refusedBeforeTraining } from '../helpers/digit-shard-run.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeDigitShards } from '../helpers/tfrecord-shards.ts';

test('a data byte flipped in record 3 of shard 2: exit 2 before training, naming it', async () => {
  const dir = tempDir('tfrecord-damaged');
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 12);
  const [, second] = writeDigitShards(digits, path.join(dir, 'shards'), 2) as [string, string];
  const bytes = fs.readFileSync(second);
  let at = 0;
  for (let r = 0; r < 3; r++) at += 16 + bytes.readUInt32LE(at); // the start of record 3
  bytes[at + 12 + 40]! ^= 0xff; // a byte inside its data
  fs.writeFileSync(second, bytes);
  const r = await refusedBeforeTraining(dir, {
    type: 'tfrecord',
    files: './shards/train-*',
    image: 'image/encoded',
    label: 'image/class/label',
    size: [28, 28],
    channels: 1,
  });
  assert.match(
    r.error,
    new RegExp(
      `^error E_DATA: data.train: shard ${second} record 3 \\(at byte ${at}\\): the CRC-32C of its \\d+ data bytes does not match \\(damaged data\\)$`,
    ),
  );
  assert.match(r.stderr, /hint: the shard is damaged or was cut short/);
});
