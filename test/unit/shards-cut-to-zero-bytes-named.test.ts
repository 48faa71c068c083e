// A shard cut to 0 bytes after it was indexed is E_DATA, never records of zeros: its record read
// for training (a TFRecord record, a tar member) names the shard and where it ended; indexing it
// again names its old index and that it is empty. An .npy data file cut to 0 bytes is E_DATA too.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { DataError } from '../../src/shared/errors.ts';
import { loadDataset } from '../../src/data/dataset.ts';
import { readRecord, type RecordRef } from '../../src/data/shards/record-image.ts';
import { readMember, type MemberRef } from '../../src/data/shards/tar-member-image.ts';
import { RecordTable } from '../../src/data/shards/record-table.ts';
import { shardIndex } from '../../src/data/shards/shard-index.ts';
import { tarScan } from '../../src/data/shards/webdataset-scan.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';
import { writeTarShards } from '../helpers/webdataset-shards.ts';

const dir = tempDir('cut-to-zero');
const isDataError = (pattern: RegExp) => (err: unknown) => {
  assert.ok(err instanceof DataError, String(err));
  assert.match(err.message, pattern);
  return true;
};

test('a TFRecord shard cut to 0 bytes: its record read and its indexing are E_DATA', async () => {
  const file = path.join(dir, 'a.tfrecord');
  writeShards([{ path: file, records: [0, 1].map((l) => digitRecord(Uint8Array.from([9, 9, 9]), l)) }]);
  const keys = { image: 'image/encoded', label: 'image/class/label' };
  const ref = new RecordTable([file], [shardIndex(file, keys)], keys.image).ref(1) as RecordRef;
  fs.truncateSync(file, 0);
  await assert.rejects(
    readRecord(ref),
    isDataError(new RegExp(`^shard ${file}: the file ended at byte ${ref.offset} \\(it is shorter than when it was indexed\\)$`)),
  );
  assert.throws(
    () => shardIndex(file, keys),
    isDataError(new RegExp(`^the record index ${file}\\.mgpu-index does not match the shard ${file} .*: shard ${file} is empty \\(0 bytes\\)`)),
  );
});

test('a tar shard cut to 0 bytes: its member read is E_DATA', async () => {
  const file = path.join(dir, 'a.tar');
  writeTarShards([
    {
      path: file,
      members: [
        { name: 'k.png', data: 'png' },
        { name: 'k.cls', data: '1' },
      ],
    },
  ]);
  const x = shardIndex(file, { stamp: 'tar', scan: (f, size) => tarScan(f, size, { image: ['png'], label: 'cls' }) });
  const ref = new RecordTable([file], [x], null).ref(0) as MemberRef;
  fs.truncateSync(file, 0);
  await assert.rejects(readMember(ref), isDataError(new RegExp(`^shard ${file}: the file ended at byte 0 \\(it is shorter than when it was indexed\\)$`)));
});

test('an .npy features file cut to 0 bytes: E_DATA', async () => {
  const features = path.join(dir, 'x.npy');
  const labels = path.join(dir, 'y.npy');
  fs.writeFileSync(features, '');
  fs.writeFileSync(labels, '');
  await assert.rejects(loadDataset({ type: 'npy', features, labels } as never, 'data.train'), isDataError(/x\.npy/));
});
