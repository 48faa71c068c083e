// One record's int64 label of 1,000,000,000, given to `mgpu-train train` with a small heap (256
// MB), exits 2 before training with an E_DATA error naming the split, the shard, the record and
// the value: it is checked against a stated bound, never made into a billion class names (which
// ran the coordinator out of memory after ~40 s).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { refusedBeforeTraining } from '../helpers/digit-shard-run.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';

test('a label of 1,000,000,000 in record 5: exit 2 before training, naming it, in a 256 MB heap', async () => {
  const dir = tempDir('tfrecord-huge-label');
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 8);
  const shard = path.join(dir, 'shards', 'train-00000-of-00001');
  fs.mkdirSync(path.dirname(shard));
  writeShards([{ path: shard, records: digits.files.map((f, i) => digitRecord(fs.readFileSync(f), i === 5 ? 1_000_000_000 : digits.labels[i]!)) }]);
  let at = 0;
  for (let r = 0; r < 5; r++) at += 16 + fs.readFileSync(shard).readUInt32LE(at); // where record 5 starts
  const r = await refusedBeforeTraining(
    dir,
    { type: 'tfrecord', files: './shards/train-*', image: 'image/encoded', label: 'image/class/label', size: [28, 28], channels: 1 },
    { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=256` },
  );
  assert.equal(
    r.error,
    `error E_DATA: data.train: shard ${shard} record 5 (at byte ${at}): label 1000000000 is past the 1,000,000 classes of numbered labels (at most 1,000,000 without data.classes or model.classes)`,
  );
});
