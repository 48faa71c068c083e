// The class index of a record is its label plus labelOffset: ImageNet's 1..1000 with -1 become
// 0..999; an index below 0 names the record and suggests labelOffset: -1; with data.classes an
// index past them names the record and the list; without, the classes are 0..K-1 by number,
// counting those with records.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { recordLabels } from '../../src/data/shards/record-labels.ts';
import { shardIndex } from '../../src/data/shards/shard-index.ts';
import { tempDir } from '../helpers/train-fixture.ts';
import { digitRecord, writeShards } from '../helpers/tfrecord-shards.ts';

const dir = tempDir('tfrecord-labels');
const keys = { image: 'image/encoded', label: 'image/class/label' };
const shard = (name: string, labels: number[]) => {
  const file = path.join(dir, name);
  writeShards([{ path: file, records: labels.map((l) => digitRecord(Uint8Array.from([1]), l)) }]);
  return shardIndex(file, keys);
};

test('labelOffset shifts the labels; the classes are 0..K-1 by number, with those that have records counted', () => {
  const a = shard('a', [1, 4, 2]);
  const b = shard('b', [4, 1]);
  const got = recordLabels([a, b], -1, 'data.train', null);
  assert.deepEqual([...got.labels], [0, 3, 1, 3, 0]);
  assert.deepEqual(got.classes, ['0', '1', '2', '3']);
  assert.equal(got.distinct, 3);
});

test('a class index below 0 names the record and suggests labelOffset: -1', () => {
  const a = shard('c', [0, 3, 0]);
  assert.throws(
    () => recordLabels([a], -1, 'data.train', null),
    (e: Error & { code?: string; hint?: string }) => {
      assert.equal(e.code, 'E_DATA');
      assert.equal(e.message, `data.train: shard ${a.file} record 0 (at byte 0): label 0 + labelOffset -1 = class -1 is below 0 (class indices start at 0)`);
      assert.equal(e.hint, 'check labelOffset');
      return true;
    },
  );
  const neg = shard('d', [2, -3]);
  assert.throws(() => recordLabels([neg], 0, 'data.train', null), {
    hint: "if the classes are numbered from 1 (as ImageNet's TFRecords are), set labelOffset: -1",
  });
});

test("with data.classes, an index past them names the record and the list's origin", () => {
  const a = shard('e', [0, 1, 2]);
  const given = { classes: ['cat', 'dog'], from: 'data.classes' };
  assert.throws(() => recordLabels([a], 0, 'data.eval', given), {
    code: 'E_DATA',
    message: `data.eval: shard ${a.file} record 2 (at byte ${a.offsets[2]}): label 2 is past the 2 classes of data.classes`,
  });
  assert.deepEqual(recordLabels([a], 0, 'data.eval', { ...given, classes: ['cat', 'dog', 'emu'] }).classes, ['cat', 'dog', 'emu']);
});
