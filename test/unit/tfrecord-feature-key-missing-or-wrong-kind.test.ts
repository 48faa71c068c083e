// The source's feature keys are checked in every record as it is indexed: a missing image or
// label key names the record and lists the features it has; a label that is a float_list, or an
// image that is an int64_list, names the kind found and the kind expected.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { scanShard } from '../../src/data/shards/index-scan.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards, type PyRecord } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-keys');
const keys = { image: 'image/encoded', label: 'image/class/label' };

function failsAt1(bad: PyRecord, message: string): void {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.tfrecord`);
  const good = digitRecord(Uint8Array.from([1]), 0);
  writeShards([{ path: file, records: [good, bad] }]);
  const at = 16 + fs.readFileSync(file).readUInt32LE(0); // record 0's length, header and CRC
  assert.throws(
    () => scanShard(file, fs.statSync(file).size, keys),
    (err: Error & { code?: string }) => {
      assert.equal(err.code, 'E_DATA');
      assert.equal(err.message, `shard ${file} record 1 (at byte ${at}): ${message}`);
      return true;
    },
  );
}

test('a missing label key lists the features the record has', () => {
  failsAt1(
    { features: { 'image/encoded': { bytes: [Uint8Array.from([1])] }, 'image/class/text': { bytes: [] } } },
    'has no feature "image/class/label" (its features: "image/encoded", "image/class/text")',
  );
});

test('a missing image key is named', () => {
  failsAt1({ features: { 'image/class/label': { int64: [3] } } }, 'has no feature "image/encoded" (its features: "image/class/label")');
});

test('a float label and an int64 image are named with the kind found', () => {
  failsAt1(
    { features: { 'image/encoded': { bytes: [Uint8Array.from([1])] }, 'image/class/label': { float: [3] } } },
    'feature "image/class/label" is a float_list, expected a int64_list',
  );
  failsAt1(
    { features: { 'image/encoded': { int64: [1] }, 'image/class/label': { int64: [3] } } },
    'feature "image/encoded" is a int64_list, expected a bytes_list',
  );
});
