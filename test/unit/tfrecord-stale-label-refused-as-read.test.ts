// A TFRecord shard rewritten in place with its size and mtime kept (cp -p, rsync -t of another
// version): a change at its start or end is seen when its index is read (the CRC-32C of its first
// and last 64 KiB), and it is indexed again; a change confined to its middle is not, but the
// record's label is checked against its index's as the record is read, so a record whose label
// changed is an error naming the record, both labels and the index file, never a sample trained
// on the old label (and never skipped as a bad sample).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { RecordTable } from '../../src/data/shards/record-table.ts';
import { readRecord, recordImage, StaleIndexError, type RecordRef } from '../../src/data/shards/record-image.ts';
import { INDEX_SUFFIX, shardIndex } from '../../src/data/shards/shard-index.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-stale-label');
const keys = { image: 'image/encoded', label: 'image/class/label' };
const file = path.join(dir, 'a.tfrecord');
const n = 60; // records of 4 KiB: a shard of 240 KiB, its middle outside the first and last 64 KiB
const labels = Array.from({ length: n }, (_, i) => i % 5);

const mtime = new Date('2026-01-02T03:04:05Z'); // whole seconds: put back exactly

/** Writes the shard with `labels`, its mtime always `mtime`. */
function rewrite(with_: number[]): void {
  writeShards([{ path: file, records: with_.map((l, i) => digitRecord(new Uint8Array(4096).fill(i), l)) }]);
  fs.utimesSync(file, mtime, mtime);
}

test("a change at a shard's start, its size and mtime kept: indexed again", () => {
  rewrite(labels);
  assert.equal(shardIndex(file, keys).how, 'built');
  rewrite(labels.map((l, i) => (i === 0 ? 4 - l : l)));
  const x = shardIndex(file, keys);
  assert.deepEqual([x.how, x.labels[0]], ['rebuilt', 4]);
  assert.match(x.why!, /^the shard changed since it was indexed \(the CRC-32C of its first and last 64 KiB is [0-9a-f]{8}, not [0-9a-f]{8}\)$/);
});

test('a label changed in the middle, size and mtime kept: the record is refused as it is read, naming both labels and the index', async () => {
  rewrite(labels);
  shardIndex(file, keys);
  const middle = 30;
  rewrite(labels.map((l, i) => (i === middle ? 4 - l : l)));
  const x = shardIndex(file, keys);
  assert.equal(x.how, 'read', 'its ends are the same: the index is read');
  assert.equal(x.labels[middle], labels[middle]);
  const table = new RecordTable([file], [x], keys.image, keys.label);
  const ref = (i: number) => table.ref(i) as RecordRef;
  assert.equal(recordImage(ref(middle - 1), await readRecord(ref(middle - 1))).length, 4096, 'an unchanged record reads');
  assert.throws(
    () => recordImage(ref(middle), readRecordSync(ref(middle))),
    (err: unknown) => {
      assert.ok(err instanceof StaleIndexError && err.code === 'E_DATA' && err.notSample);
      assert.equal(
        err.message,
        `shard ${file} record ${middle} (at byte ${x.offsets[middle]}): its label is ${4 - labels[middle]!}, but its record index ${file}${INDEX_SUFFIX} says ${labels[middle]}: the shard changed since it was indexed (with its size, mtime and first and last 64 KiB kept)`,
      );
      return true;
    },
  );
});

/** The framed record of `ref`, read here (the test's own read: offset, then 12 + length + 4 bytes). */
function readRecordSync(ref: RecordRef): Buffer {
  return fs.readFileSync(file).subarray(ref.offset, ref.offset + 12 + ref.length + 4);
}
