// `mgpu-train shards --format tfrecord` on a folder of real digit images: Python's own reader
// (test/helpers/read_tfrecord.py: both masked CRC-32Cs of every record checked, the Example
// walked by hand) finds TF-slim's file names, every image once in the folder's index order, its
// bytes unchanged, its 0-based class index, class name, format and path, and the counts that
// shards.json lists.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { runCli } from '../helpers/run-cli.ts';
import { bytesOf, int64Of, readTfRecords, sha256, visibleFiles } from '../helpers/shard-readers.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('shards-tfrecord');

test('TFRecord shards hold every image as a tf.train.Example that an independent reader checks', async () => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 40);
  const out = path.join(dir, 'out');
  const r = runCli(['shards', digits.dir, out, '--format', 'tfrecord', '--shard-samples', '15']);
  assert.equal(r.code, 0, r.stderr);
  const names = ['train-00000-of-00003.tfrecord', 'train-00001-of-00003.tfrecord', 'train-00002-of-00003.tfrecord'];
  assert.deepEqual(visibleFiles(out), ['shards.json', ...names]);
  const read = readTfRecords(names.map((n) => path.join(out, n)));
  assert.deepEqual(
    read.map((f) => f.records.length),
    [15, 15, 10],
  );
  const records = read.flatMap((f) => f.records.map((rec) => rec.features));
  records.forEach((f, k) => {
    const file = digits.files[k]!;
    const image = bytesOf(f['image/encoded']);
    assert.equal(image.sha256, sha256(file), `record ${k}: the bytes of ${file}`);
    assert.equal(image.length, fs.statSync(file).size);
    assert.equal(int64Of(f['image/class/label']), digits.labels[k]);
    assert.equal(bytesOf(f['image/class/text']).text, String(digits.labels[k]));
    assert.equal(bytesOf(f['image/format']).text, 'png');
    assert.equal(bytesOf(f['image/filename']).text, path.relative(digits.dir, file));
  });
  const manifest = JSON.parse(fs.readFileSync(path.join(out, 'shards.json'), 'utf8')) as {
    format: string;
    samples: number;
    classes: string[];
    shards: Array<{ file: string; records: number; first: number; bytes: number }>;
  };
  assert.equal(manifest.format, 'tfrecord');
  assert.equal(manifest.samples, 40);
  assert.deepEqual(manifest.classes, ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
  assert.deepEqual(
    manifest.shards.map((s) => [s.file, s.records, s.first, s.bytes]),
    read.map((f, i) => [names[i], f.records.length, i * 15, f.bytes]),
  );
});
