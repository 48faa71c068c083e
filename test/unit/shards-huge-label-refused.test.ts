// A valid int64 label of 1,000,000,000 in one record (or a .cls of it in a tar) is refused by
// name (E_DATA: the split, the shard, the record and the value), checked against model.classes
// when the config sets it, else a stated bound: never a list of classes as long as the largest
// label (which took ~40 s and ~1.9 GB before the coordinator died of memory).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { DataError } from '../../src/shared/errors.ts';
import { recordLabels } from '../../src/data/shards/record-labels.ts';
import { shardIndex } from '../../src/data/shards/shard-index.ts';
import { tarScan } from '../../src/data/shards/webdataset-scan.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';
import { writeTarShards } from '../helpers/webdataset-shards.ts';

const dir = tempDir('huge-label');
const keys = { image: 'image/encoded', label: 'image/class/label' };

function tfrecord(name: string, labels: number[]) {
  const file = path.join(dir, name);
  writeShards([{ path: file, records: labels.map((l, i) => digitRecord(Uint8Array.from([i]), l)) }]);
  return shardIndex(file, keys);
}

const refused = (message: string) => (err: unknown) => {
  assert.ok(err instanceof DataError, String(err));
  assert.equal(err.message, message);
  return true;
};

test('a TFRecord label of 1,000,000,000 without model.classes: E_DATA naming the record and the value', () => {
  const x = tfrecord('a.tfrecord', [0, 1, 1_000_000_000, 2]);
  assert.throws(
    () => recordLabels([x], 0, 'data.train', null),
    refused(
      `data.train: shard ${x.file} record 2 (at byte ${x.offsets[2]}): label 1000000000 is past the 1,000,000 classes of numbered labels (at most 1,000,000 without data.classes or model.classes)`,
    ),
  );
});

test('a label past model.classes (10): E_DATA naming model.classes; below it, read', () => {
  const x = tfrecord('b.tfrecord', [0, 9, 10]);
  assert.throws(
    () => recordLabels([x], 0, 'data.train', null, undefined, 10),
    refused(`data.train: shard ${x.file} record 2 (at byte ${x.offsets[2]}): label 10 is past the 10 classes of model.classes`),
  );
  assert.deepEqual([...recordLabels([tfrecord('c.tfrecord', [1, 9, 10])], -1, 'data.train', null, undefined, 10).labels], [0, 8, 9]);
});

test('a .cls of 1000000000 in a tar shard: E_DATA naming the sample and the value', () => {
  const file = path.join(dir, 'a.tar');
  writeTarShards([
    {
      path: file,
      members: ['3', '1000000000'].flatMap((cls, i) => [
        { name: `k${i}.png`, data: 'png' },
        { name: `k${i}.cls`, data: cls },
      ]),
    },
  ]);
  const x = shardIndex(file, { stamp: 'tar', scan: (f, size) => tarScan(f, size, { image: ['png'], label: 'cls' }) });
  const place = (i: typeof x, r: number) => `shard ${i.file} sample ${r}`;
  assert.throws(
    () => recordLabels([x], 0, 'data.train', null, place),
    refused(
      `data.train: shard ${file} sample 1: label 1000000000 is past the 1,000,000 classes of numbered labels (at most 1,000,000 without data.classes or model.classes)`,
    ),
  );
});
