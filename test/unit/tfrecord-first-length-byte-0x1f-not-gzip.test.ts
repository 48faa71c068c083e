// A TFRecord shard is refused as gzip only for gzip's two magic bytes (1f 8b): a shard whose
// first record holds 31 bytes starts with 1f 00 (its little-endian length) and is read. (An
// Example of one packed float_list of 4 under a 3-letter key is 31 bytes.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { scanShard } from '../../src/data/shards/index-scan.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeShards } from '../helpers/tfrecord-shards.ts';

test('a first record of 31 bytes (the shard starts 1f 00) is not taken for gzip', () => {
  const file = path.join(tempDir('tfrecord-0x1f'), 'a.tfrecord');
  writeShards([{ path: file, records: [1, 2].map((v) => ({ features: { xyz: { float: [v, v, v, v], packed: true } } })) }]);
  const size = fs.statSync(file).size;
  assert.deepEqual([...fs.readFileSync(file).subarray(0, 2)], [0x1f, 0x00]);
  const index = scanShard(file, size, { features: [{ key: 'xyz', shape: [4] }] });
  assert.deepEqual([index.count, Array.from(index.lengths)], [2, [31, 31]]);
});
