// `mgpu-train shards --format webdataset` on an image list CSV (path,label) of real digit images,
// PNG and JPEG, labelled by digit names: Python's tarfile (test/helpers/read_webdataset.py, ustar
// headers checked) finds <prefix>-000000.tar files whose members are, in the list's order, each
// sample's <key>.<its extension> (the file's bytes unchanged) then <key>.cls (the index of its
// class among the sorted names, as decimal text), the keys a running number unique across shards.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { runCli } from '../helpers/run-cli.ts';
import { readTars, sha256, visibleFiles } from '../helpers/shard-readers.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('shards-webdataset');
const NAMES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

test('WebDataset tar shards hold each listed image and its class index as consecutive members', async () => {
  const png = await writeDigitFolder(path.join(dir, 'png'), 20);
  const jpg = await writeDigitFolder(path.join(dir, 'jpg'), 20, { offset: 20, format: 'jpeg' });
  const listed = [...png.files.map((f, i) => [f, png.labels[i]!] as const), ...jpg.files.map((f, i) => [f, jpg.labels[i]!] as const)];
  const list = path.join(dir, 'train.csv');
  fs.writeFileSync(list, 'path,label\n' + listed.map(([f, d]) => `${path.relative(dir, f)},${NAMES[d]}`).join('\n') + '\n');
  const classes = [...new Set(listed.map(([, d]) => NAMES[d]!))].sort();
  const out = path.join(dir, 'out');
  const r = runCli(['shards', list, out, '--format', 'webdataset', '--shard-samples', '16', '--prefix', 'digits']);
  assert.equal(r.code, 0, r.stderr);
  const names = ['digits-000000.tar', 'digits-000001.tar', 'digits-000002.tar'];
  assert.deepEqual(visibleFiles(out), [...names, 'shards.json']);
  const read = readTars(names.map((n) => path.join(out, n)));
  assert.deepEqual(
    read.map((f) => f.members.length),
    [32, 32, 16],
  );
  const members = read.flatMap((f) => f.members);
  listed.forEach(([file, digit], k) => {
    const key = String(k).padStart(6, '0');
    const [image, cls] = [members[2 * k]!, members[2 * k + 1]!];
    assert.equal(image.name, `${key}.${path.extname(file).slice(1)}`);
    assert.equal(image.sha256, sha256(file), `sample ${k}: the bytes of ${file}`);
    assert.equal(cls.name, `${key}.cls`);
    assert.equal(cls.text, String(classes.indexOf(NAMES[digit]!)));
  });
  const manifest = JSON.parse(fs.readFileSync(path.join(out, 'shards.json'), 'utf8')) as {
    format: string;
    sourceKind: string;
    samples: number;
    classes: string[];
    shards: Array<{ file: string; records: number; first: number; bytes: number }>;
  };
  assert.deepEqual([manifest.format, manifest.sourceKind, manifest.samples, manifest.classes], ['webdataset', 'list', 40, classes]);
  assert.deepEqual(
    manifest.shards.map((s) => [s.file, s.records, s.first, s.bytes]),
    read.map((f, i) => [names[i], f.members.length / 2, i * 16, f.bytes]),
  );
});
