// Integers past 2^53 in a shard are named exactly in errors, never rounded to a float64: a
// record whose length field says 2^60 + 1 (its CRC valid) and a label of 2^60 + 1. The length
// header is framed here with a bitwise CRC-32C and TensorFlow's mask written out (no code of the
// reader's).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { shardIndex } from '../../src/data/shards/shard-index.ts';
import { crc32cBitwise } from '../helpers/crc32c-reference.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('large-integers');
const keys = { image: 'image/encoded', label: 'image/class/label' };
const big = 2n ** 60n + 1n; // 1152921504606846977: a float64 rounds it to ...976

test('a record length of 2^60 + 1: named exactly, and where it would end', () => {
  const header = Buffer.alloc(12);
  header.writeBigUInt64LE(big, 0);
  const crc = crc32cBitwise(header.subarray(0, 8));
  header.writeUInt32LE((((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0, 8);
  const file = path.join(dir, 'a.tfrecord');
  fs.writeFileSync(file, Buffer.concat([header, Buffer.alloc(100)]));
  assert.throws(() => shardIndex(file, keys), {
    code: 'E_DATA',
    message: `shard ${file} record 0 (at byte 0): truncated: its 1152921504606846977 data bytes and CRC end at byte 1152921504606846993, past the shard's end at 112`,
  });
});

test('a label of 2^60 + 1: named exactly', () => {
  const file = path.join(dir, 'b.tfrecord');
  writeShards([
    {
      path: file,
      records: [
        digitRecord(Uint8Array.from([1]), 0),
        { features: { 'image/encoded': { bytes: [Uint8Array.from([1])] }, 'image/class/label': { int64: [big] } } },
      ],
    },
  ]);
  assert.throws(
    () => shardIndex(file, keys),
    (err: Error) => err.message.includes('label 1152921504606846977 (feature "image/class/label") is not a class index'),
  );
});
