// A folder with no images (class folders without any, or none at all) is E_DATA (exit 2) naming
// the folder and what was looked for, before the out dir is made; a source that does not exist
// is E_USAGE naming it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('shards-empty');

test('an empty images folder is named, and so is a missing one', () => {
  const photos = path.join(dir, 'photos');
  fs.mkdirSync(path.join(photos, 'cat'), { recursive: true });
  fs.mkdirSync(path.join(photos, 'dog'));
  fs.writeFileSync(path.join(photos, 'dog', 'notes.txt'), 'x');
  const out = path.join(dir, 'out');
  const r = runCli(['shards', photos, out, '--format', 'tfrecord']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`^error E_DATA: shards: no images in ${photos} \\(2 class folders; looked for \\.jpg`, 'm'));
  assert.equal(fs.existsSync(out), false, 'the out dir is not made');

  const missing = runCli(['shards', path.join(dir, 'nowhere'), out, '--format', 'tfrecord']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, new RegExp(`^error E_USAGE: shards: no such images folder or list: ${path.join(dir, 'nowhere')}$`, 'm'));
});
