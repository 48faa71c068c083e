// --shuffle --seed N writes the images in an order drawn from the seed alone: every image once,
// not the folder's order, the same bytes on a rerun with the same seed, another order with
// another seed; shards.json says which. --seed without --shuffle is E_USAGE.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { runCli } from '../helpers/run-cli.ts';
import { bytesOf, readTfRecords, sha256, visibleFiles } from '../helpers/shard-readers.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('shards-shuffle');

test('a seeded shuffle: every image once, repeatable from the seed, another with another seed', async () => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 30);
  const write = (name: string, seed: string) => {
    const out = path.join(dir, name);
    const r = runCli(['shards', digits.dir, out, '--format', 'tfrecord', '--shard-samples', '12', '--shuffle', '--seed', seed]);
    assert.equal(r.code, 0, r.stderr);
    const files = visibleFiles(out).filter((f) => f.endsWith('.tfrecord'));
    const order = readTfRecords(files.map((f) => path.join(out, f))).flatMap((f) => f.records.map((rec) => bytesOf(rec.features['image/filename']).text!));
    return { out, files, order };
  };
  const sorted = digits.files.map((f) => path.relative(digits.dir, f));
  const a = write('a', '7');
  assert.deepEqual([...a.order].sort(), [...sorted].sort());
  assert.notDeepEqual(a.order, sorted);
  const again = write('again', '7');
  assert.deepEqual(again.order, a.order);
  assert.deepEqual(
    again.files.map((f) => sha256(path.join(again.out, f))),
    a.files.map((f) => sha256(path.join(a.out, f))),
  );
  const other = write('other', '8');
  assert.notDeepEqual(other.order, a.order);
  const manifest = JSON.parse(fs.readFileSync(path.join(a.out, 'shards.json'), 'utf8')) as { order: string; arguments: { seed: number } };
  assert.equal(manifest.order, 'shuffled, seed 7');
  assert.equal(manifest.arguments.seed, 7);

  const noShuffle = runCli(['shards', digits.dir, path.join(dir, 'x'), '--format', 'tfrecord', '--seed', '7']);
  assert.equal(noShuffle.code, 2);
  assert.match(noShuffle.stderr, /^error E_USAGE: --seed applies to --shuffle only$/m);
});
