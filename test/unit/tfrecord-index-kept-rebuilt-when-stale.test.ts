// A shard's record index is built once and kept beside it (16 bytes a record after a small
// header); the next look reads it without scanning; a shard changed since (size or mtime), an
// index of another version, a foreign file in its place, or an index checked for other keys is
// rebuilt, with the reason said.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { INDEX_SUFFIX, shardIndex } from '../../src/data/shards/shard-index.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-index');
const keys = { image: 'image/encoded', label: 'image/class/label' };
const file = path.join(dir, 'a.tfrecord');
const idx = `${file}${INDEX_SUFFIX}`;
const write = (n: number) => writeShards([{ path: file, records: Array.from({ length: n }, (_, i) => digitRecord(Uint8Array.from([i]), i % 3)) }]);

test('built, then read, then rebuilt when stale, of another version, foreign, or for other keys', () => {
  write(5);
  const built = shardIndex(file, keys);
  assert.deepEqual([built.how, built.indexFile, built.inCache, built.count], ['built', idx, false, 5]);
  const keyBytes = Buffer.byteLength(JSON.stringify([keys.image, keys.label]));
  assert.equal(fs.statSync(idx).size, 48 + ((keyBytes + 7) & ~7) + 5 * 16);
  const read = shardIndex(file, keys);
  assert.equal(read.how, 'read');
  assert.deepEqual([...read.offsets], [...built.offsets]);
  assert.deepEqual([...read.labels], [0, 1, 2, 0, 1]);

  write(7); // the shard changes: another size and mtime
  const stale = shardIndex(file, keys);
  assert.deepEqual([stale.how, stale.count], ['rebuilt', 7]);
  assert.match(stale.why!, /^the shard changed since it was indexed \(then \d+ bytes/);

  const later = new Date(fs.statSync(file).mtimeMs + 5000);
  fs.utimesSync(file, later, later); // the same size, a new mtime: rewritten in place
  assert.equal(shardIndex(file, keys).how, 'rebuilt');
  assert.equal(shardIndex(file, keys).how, 'read');

  const bytes = fs.readFileSync(idx);
  bytes.writeUInt32LE(99, 8);
  fs.writeFileSync(idx, bytes);
  const other = shardIndex(file, keys);
  assert.deepEqual([other.how, other.why], ['rebuilt', 'it is of index version 99, not 2']);

  fs.writeFileSync(idx, 'offset length\n0 17\n'); // e.g. another tool's text index under the name
  const foreign = shardIndex(file, keys);
  assert.deepEqual([foreign.how, foreign.why], ['rebuilt', 'it is not an mgpu-train record index']);
  assert.equal(shardIndex(file, keys).how, 'read');

  const noLabel = shardIndex(file, { image: 'image/encoded', label: null });
  assert.equal(noLabel.how, 'rebuilt');
  assert.match(noLabel.why!, /^it was checked for other feature keys/);
});
