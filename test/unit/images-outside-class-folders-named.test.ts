// An image directly in an images source's dir, outside any class folder, is left out with a
// warning that says images go in class folders and names one such file; with no class folder at
// all, the no-images error says the same.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { indexFolder } from '../../src/data/images/folder-index.ts';
import { imageExtensions, requireSharp } from '../../src/data/images/sharp-module.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const exts = imageExtensions(requireSharp('data.train'));

test('an image outside the class folders is named, with where it should be', () => {
  const dir = tempDir('images-outside-class');
  fs.mkdirSync(path.join(dir, 'cat'));
  fs.writeFileSync(path.join(dir, 'cat', 'a.jpg'), 'x'); // indexed, not decoded
  fs.writeFileSync(path.join(dir, 'stray.jpg'), 'x');
  const index = indexFolder(dir, 'data.train', exts, null);
  assert.equal(index.paths.count, 1);
  const warning = index.found.warnings.join('\n');
  assert.match(warning, /1 image directly in .*outside any class folder/);
  assert.match(warning, /images must be in class folders/);
  assert.ok(warning.includes(path.join(dir, 'stray.jpg')), warning);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a folder of images and no class folder says the images are outside class folders', () => {
  const dir = tempDir('images-no-class');
  fs.writeFileSync(path.join(dir, 'b.png'), 'x');
  assert.throws(
    () => indexFolder(dir, 'data.train', exts, null),
    (err: Error) => err.message.includes(`outside any class folder (e.g. ${path.join(dir, 'b.png')})`),
  );
  fs.rmSync(dir, { recursive: true, force: true });
});
