// x / y features are checked in every record as its shard is indexed: a feature missing, a
// bytes_list, a count of values that is not its shape's, an int64 past int32, each names the
// shard, the record and the key; a feature whose kind changes between records names the record
// where it changed; data.onBadSample: skip is refused for a source read whole before step 0.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TfrecordFeatureSource } from '../../src/config/types.ts';
import { loadTfrecordFeatures } from '../../src/data/shards/load-tfrecord-features.ts';
import { shardIndex } from '../../src/data/shards/shard-index.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { writeShards, type PyFeature } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-feature-values');
const specs = [
  { key: 'v', shape: [2] },
  { key: 'c', shape: [] },
];

function shard(name: string, second: Record<string, PyFeature>): { file: string; at: number } {
  const file = path.join(dir, name);
  writeShards([{ path: file, records: [{ features: { v: { float: [1, 2] }, c: { int64: [1] } } }, { features: second }] }]);
  return { file, at: 16 + fs.readFileSync(file).readUInt32LE(0) };
}

const failsAt1 = (name: string, second: Record<string, PyFeature>, message: string) => {
  const { file, at } = shard(name, second);
  assert.throws(() => shardIndex(file, { features: specs }), { code: 'E_DATA', message: `shard ${file} record 1 (at byte ${at}): ${message}` });
};

test('a missing key, a bytes_list, a wrong count, an int64 past int32: named with the record', () => {
  failsAt1('a', { v: { float: [1, 2] } }, 'has no feature "c" (its features: "v")');
  failsAt1('b', { v: { bytes: [Uint8Array.from([1])] }, c: { int64: [1] } }, 'feature "v" is a bytes_list, expected a float_list or int64_list');
  failsAt1('c', { v: { float: [1, 2, 3] }, c: { int64: [1] } }, 'feature "v" holds 3 values, expected 2 (shape [2])');
  failsAt1('d', { v: { float: [1, 2] }, c: { int64: [2n ** 31n] } }, 'feature "c" value 2147483648 is past int32 (an int64_list is read as int32)');
});

const source = (files: string): TfrecordFeatureSource => ({ type: 'tfrecord', files, x: { v: specs[0]! }, y: { c: specs[1]! } });

test('a feature whose kind changes between records is named where it changes', () => {
  const { file, at } = shard('e', { v: { int64: [1, 2] }, c: { int64: [0] } });
  assert.throws(() => loadTfrecordFeatures(source(file), 'data.train', false), {
    code: 'E_DATA',
    message: `data.train: shard ${file} record 1 (at byte ${at}): feature "v" is a int64_list, but a float_list in the records before it`,
  });
});

test('the values load as float32 and int32 rows; onBadSample: skip is refused', async () => {
  const { file } = shard('f', { v: { float: [3, 4] }, c: { int64: [-2] } });
  const ds = await loadTfrecordFeatures(source(file), 'data.train', false);
  assert.deepEqual([ds.count, ds.inputs![0]!.name, ds.targets![0]!.name], [2, 'v', 'c']);
  assert.deepEqual([...(ds.features.toArray().data as Float32Array)], [1, 2, 3, 4]);
  assert.deepEqual(ds.labels.toArray().shape, [2]);
  assert.deepEqual([...(ds.labels.toArray().data as Int32Array)], [1, -2]);
  assert.throws(() => loadTfrecordFeatures(source(file), 'data.train', true), {
    code: 'E_CONFIG',
    message: /^data.onBadSample: is skip, but data.train is a tfrecord source of x \/ y features/,
  });
});
