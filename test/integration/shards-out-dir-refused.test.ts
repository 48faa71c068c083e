// Nothing already in the out dir is silently replaced: shards written there before (or any
// shard-like file, a tar of another tool) make a second run E_USAGE (exit 2) naming the folder,
// every file left as it was; --force replaces them once the new shards are complete (the old
// shards of another count gone too), and other files in the folder are kept.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeDigitFolder } from '../helpers/digit-images.ts';
import { runCli } from '../helpers/run-cli.ts';
import { sha256, visibleFiles } from '../helpers/shard-readers.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('shards-out-dir');

const snapshot = (d: string) => Object.fromEntries(fs.readdirSync(d).map((f) => [f, sha256(path.join(d, f))]));

test('an out dir that holds shards is refused naming it, unless --force', async () => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 30);
  const out = path.join(dir, 'out');
  const args = ['shards', digits.dir, out, '--format', 'tfrecord'];
  assert.equal(runCli([...args, '--shard-samples', '10']).code, 0);
  fs.writeFileSync(path.join(out, 'NOTES.txt'), 'mine\n');
  const before = snapshot(out);
  const again = runCli([...args, '--shard-samples', '10']);
  assert.equal(again.code, 2, again.stderr);
  assert.match(
    again.stderr,
    new RegExp(`^error E_USAGE: shards: the out dir ${out} already holds shards \\(shards\\.json, train-00000-of-00003\\.tfrecord`, 'm'),
  );
  assert.match(again.stderr, /hint: .*--force/);
  assert.deepEqual(snapshot(out), before);

  const other = path.join(dir, 'other');
  fs.mkdirSync(other);
  fs.writeFileSync(path.join(other, 'made-elsewhere.tar'), 'x');
  const intoOther = runCli(['shards', digits.dir, other, '--format', 'webdataset']);
  assert.equal(intoOther.code, 2);
  assert.match(intoOther.stderr, new RegExp(`the out dir ${other} already holds shards \\(made-elsewhere\\.tar\\)`));
  assert.deepEqual(visibleFiles(other), ['made-elsewhere.tar']);

  const forced = runCli([...args, '--shard-samples', '30', '--force']);
  assert.equal(forced.code, 0, forced.stderr);
  assert.deepEqual(fs.readdirSync(out).sort(), ['NOTES.txt', 'shards.json', 'train-00000-of-00001.tfrecord']);
  assert.equal(fs.readFileSync(path.join(out, 'NOTES.txt'), 'utf8'), 'mine\n');
});
