// A record index edited by hand (its labels changed in place, its size kept) is never read for its
// labels: its own CRC-32C no longer matches, so it is rebuilt from the shard, and the labels are
// the shard's. The same for a TFRecord shard's index and a tar shard's.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { INDEX_SUFFIX, shardIndex } from '../../src/data/shards/shard-index.ts';
import { tarScan } from '../../src/data/shards/webdataset-scan.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';
import { writeTarShards } from '../helpers/webdataset-shards.ts';

const dir = tempDir('index-edited');
const truth = [0, 1, 2, 0, 1];

/** Sets record `r`'s label in the index file to `label` (the labels are its last count * 4 bytes, int32 LE). */
function editLabel(indexFile: string, count: number, r: number, label: number): void {
  const bytes = fs.readFileSync(indexFile);
  bytes.writeInt32LE(label, bytes.length - 4 * count + 4 * r);
  fs.writeFileSync(indexFile, bytes);
}

function checkEdited(file: string, index: () => { how: string; why: string | null; labels: Int32Array }): void {
  assert.deepEqual([...index().labels], truth);
  editLabel(`${file}${INDEX_SUFFIX}`, truth.length, 0, 2);
  editLabel(`${file}${INDEX_SUFFIX}`, truth.length, 3, 7);
  const again = index();
  assert.deepEqual([again.how, [...again.labels]], ['rebuilt', truth]);
  assert.equal(again.why, 'its own CRC-32C does not match: it was edited or damaged after it was written');
  assert.deepEqual([index().how, [...index().labels]], ['read', truth]);
}

test("a TFRecord shard's index edited by hand is rebuilt: the shard's labels", () => {
  const file = path.join(dir, 'a.tfrecord');
  writeShards([{ path: file, records: truth.map((label, i) => digitRecord(Uint8Array.from([i]), label)) }]);
  checkEdited(file, () => shardIndex(file, { image: 'image/encoded', label: 'image/class/label' }));
});

test("a tar shard's index edited by hand is rebuilt: the shard's labels", () => {
  const file = path.join(dir, 'a.tar');
  writeTarShards([
    {
      path: file,
      members: truth.flatMap((label, i) => [
        { name: `k${i}.png`, data: 'x' },
        { name: `k${i}.cls`, data: String(label) },
      ]),
    },
  ]);
  const keys = { image: ['png'], label: 'cls' };
  checkEdited(file, () => shardIndex(file, { stamp: 'tar', scan: (f, size) => tarScan(f, size, keys) }));
});
