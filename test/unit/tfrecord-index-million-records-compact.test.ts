// The record index of a shard of a million records is 16 bytes a record after its header (16 MB,
// not an object per record) and reads back to the same offsets, lengths and labels, as three
// typed arrays.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeIndex, encodeIndex } from '../../src/data/shards/index-file.ts';

test('1M records: 16 bytes each after the header, the same arrays back', () => {
  const n = 1_000_000;
  const lengths = Uint32Array.from({ length: n }, (_, i) => 100 + (i % 997));
  const offsets = new Float64Array(n);
  for (let i = 1; i < n; i++) offsets[i] = offsets[i - 1]! + 16 + lengths[i - 1]!;
  const labels = Int32Array.from({ length: n }, (_, i) => i % 1000);
  const stamp = {
    size: offsets[n - 1]! + 16 + lengths[n - 1]!,
    mtimeMs: 1_700_000_000_123.5,
    keys: '["image/encoded","image/class/label"]',
    fingerprint: 0x1234abcd,
  };
  const bytes = encodeIndex({ count: n, offsets, lengths, labels }, stamp);
  assert.equal(bytes.length, 48 + 40 + 16 * n);
  const back = decodeIndex(bytes, stamp);
  if (typeof back === 'string') assert.fail(back);
  assert.ok(back.offsets instanceof Float64Array && back.lengths instanceof Uint32Array && back.labels instanceof Int32Array);
  assert.deepEqual([back.count, back.offsets[n - 1], back.lengths[n - 1], back.labels[n - 1]], [n, offsets[n - 1], lengths[n - 1], labels[n - 1]]);
  assert.ok(Buffer.from(back.offsets.buffer, back.offsets.byteOffset, 8 * n).equals(Buffer.from(offsets.buffer)));
  assert.equal(back.fingerprint, 0x1234abcd);
  assert.equal(decodeIndex(bytes.subarray(0, bytes.length - 16), stamp), 'its own CRC-32C does not match: it was edited or damaged after it was written');
});
