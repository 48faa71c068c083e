// A shard written by an independent writer (test/helpers/tfrecord-writer.py: its own CRC-32C,
// mask and protobuf) is indexed record by record: each record's offset and data length where the
// framing puts them (12 header bytes, the data, 4 CRC bytes), its label read, and the index
// scan's framing gives back each record's data byte for byte, empty data included.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { scanShard } from '../../src/data/shards/index-scan.ts';
import { unframe } from '../../src/data/shards/tfrecord-framing.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-read');

test('records of a Python-written shard: offsets, lengths, labels and data as written', () => {
  const file = path.join(dir, 'a.tfrecord');
  const images = [new Uint8Array(0), Uint8Array.from([1, 2, 3]), Uint8Array.from({ length: 300 }, (_, i) => (i * 7) & 255)];
  writeShards([{ path: file, records: images.map((im, i) => digitRecord(im, 2 * i + 1)) }]);
  const bytes = fs.readFileSync(file);
  const index = scanShard(file, bytes.length, { image: 'image/encoded', label: 'image/class/label' });
  assert.equal(index.count, 3);
  assert.deepEqual([...index.labels], [1, 3, 5]);
  let at = 0;
  for (let i = 0; i < 3; i++) {
    assert.equal(index.offsets[i], at);
    const framed = bytes.subarray(at, at + 12 + index.lengths[i]! + 4);
    const data = unframe(framed, file, i, at);
    assert.equal(data.length, index.lengths[i]);
    assert.ok(Buffer.from(data).includes(Buffer.from(images[i]!)), `record ${i} holds its image bytes`);
    at += 16 + index.lengths[i]!;
  }
  assert.equal(at, bytes.length);
});
