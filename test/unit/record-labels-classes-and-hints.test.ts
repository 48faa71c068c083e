// A tfrecord split's classes from its labels: numbered 0..K-1 with K one past the largest class
// found (one class where every label is 0), or the listed classes; a label outside them names its
// record and says what bounds it, with the hint of that bound (the list's own or 'list every
// class in data.classes', model.classes, or the numbered labels' limit).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordLabels } from '../../src/data/shards/record-labels.ts';
import type { ShardIndex } from '../../src/data/shards/shard-index.ts';
import { DataError } from '../../src/shared/errors.ts';

const shard = (labels: number[]): ShardIndex => ({
  file: 's.tfrecord',
  indexFile: 's.tfrecord.mgpu-index',
  inCache: false,
  how: 'built',
  why: null,
  count: labels.length,
  offsets: Float64Array.from(labels, (_, i) => 100 * i),
  lengths: new Uint32Array(labels.length).fill(88),
  labels: Int32Array.from(labels),
});

test('numbered classes: 0..K-1 for the largest K-1 found, one class when every label is 0', () => {
  assert.deepEqual(recordLabels([shard([0, 0, 0])], 0, 'data.train', null).classes, ['0']);
  const r = recordLabels([shard([2, 0]), shard([4])], 0, 'data.train', null);
  assert.deepEqual(r.classes, ['0', '1', '2', '3', '4']);
  assert.deepEqual([Array.from(r.labels), r.distinct], [[2, 0, 4], 3]);
});

function hintOf(f: () => unknown): [string, string | undefined] {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof DataError);
    return [e.message, e.hint];
  }
  assert.fail('no error');
}

test('a label past the listed classes: the list named, its hint or the default one', () => {
  const listed = { classes: ['cat', 'dog'], from: 'data.classes' };
  assert.deepEqual(
    hintOf(() => recordLabels([shard([0, 2])], 0, 'data.train', listed)),
    ['data.train: shard s.tfrecord record 1 (at byte 100): label 2 is past the 2 classes of data.classes', 'list every class in data.classes'],
  );
  assert.equal(hintOf(() => recordLabels([shard([5])], 0, 'data.train', { ...listed, hint: 'their own' }))[1], 'their own');
});

test("a label past model.classes, or past the numbered labels' limit: each bound's hint", () => {
  assert.deepEqual(
    hintOf(() => recordLabels([shard([3])], 0, 'data.train', null, undefined, 3)),
    [
      'data.train: shard s.tfrecord record 0 (at byte 0): label 3 is past the 3 classes of model.classes',
      'check the label feature (and labelOffset), or raise model.classes to the number of classes',
    ],
  );
  assert.deepEqual(
    hintOf(() => recordLabels([shard([1_000_000])], 0, 'data.train', null)),
    [
      'data.train: shard s.tfrecord record 0 (at byte 0): label 1000000 is past the 1,000,000 classes of numbered labels (at most 1,000,000 without data.classes or model.classes)',
      'check the label feature (and labelOffset); a run of more classes lists them in data.classes or sets model.classes',
    ],
  );
});
