// The index scan keeps its records in typed arrays that start at 1,024 entries and grow: a shard
// of 2,500 records (past two growths) keeps every record's offset, length and label, the labels
// compared with those the shard was written with and the offsets with the framing's own sums.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { shardIndex } from '../../src/data/shards/shard-index.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';

test('2,500 records: every label, offset and length kept', () => {
  const file = path.join(tempDir('scan-past-1024'), 'a.tfrecord');
  const n = 2500;
  const labels = Array.from({ length: n }, (_, i) => (i * 7919) % 1000); // no two neighbours alike
  const images = Array.from({ length: n }, (_, i) => new Uint8Array(1 + (i % 5)).fill(i % 256));
  writeShards([{ path: file, records: labels.map((l, i) => digitRecord(images[i]!, l)) }]);
  const x = shardIndex(file, { image: 'image/encoded', label: 'image/class/label' });
  assert.equal(x.count, n);
  assert.deepEqual([...x.labels], labels);
  let at = 0;
  for (let i = 0; i < n; i++) {
    assert.equal(x.offsets[i], at, `record ${i}'s offset`);
    at += 16 + x.lengths[i]!;
  }
  assert.equal(at, fs.statSync(file).size, 'the records end where the shard does');
});
