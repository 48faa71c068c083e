// The index of an image folder: classes are the subfolders sorted by code point (as
// torchvision's ImageFolder: '10' < '9' < 'Zulu' < 'ant'), files found at any depth and sorted
// the same way, extensions matched in any case; hidden files and folders and files of other
// extensions are skipped and counted; labels are the class indices.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { indexFolder } from '../../src/data/images/folder-index.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-index-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const EXTS = ['.jpg', '.jpeg', '.png', '.webp'];

function touch(...files: string[]): void {
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), 'x');
  }
}

touch('ant/b.PNG', 'ant/a.jpg', 'ant/deep/er/c.JpEg', 'ant/notes.txt', 'ant/.DS_Store', 'ant/.hidden/x.png');
touch('Zulu/1.webp', 'Zulu/README', '10/z.png', '9/y.png', 'stray.jpg', '.git/config');

test('classes sorted by code point, files at any depth sorted, labels their class indices', () => {
  const ix = indexFolder(dir, 'data.train', EXTS, null);
  assert.deepEqual(ix.classes, ['10', '9', 'Zulu', 'ant']);
  const rel = Array.from({ length: ix.paths.count }, (_, i) => ix.paths.relative(i));
  assert.deepEqual(rel, ['10/z.png', '9/y.png', 'Zulu/1.webp', 'ant/a.jpg', 'ant/b.PNG', 'ant/deep/er/c.JpEg']);
  assert.deepEqual([...ix.labels], [0, 1, 2, 3, 3, 3]);
  assert.equal(ix.paths.file(3), path.join(dir, 'ant/a.jpg'));
});

test('the header counts images by extension, skipped files by extension and hidden ones', () => {
  const ix = indexFolder(dir, 'data.train', EXTS, null);
  // skipped: ant/notes.txt, Zulu/README, the top-level stray.jpg (not in a class folder); hidden: ant/.DS_Store, ant/.hidden, .git
  assert.equal(ix.found.describeImages(), '6 images (jpeg 1, jpg 1, png 3, webp 1)');
  assert.equal(ix.found.describeSkipped(), 'skipped 3 other files (no extension 1, jpg 1, txt 1) and 3 hidden');
});

test('a fixed mapping (eval: the training classes) labels by its indices, and refuses a class it lacks', () => {
  const fixed = { classes: ['ant', 'Zulu', '9', '10', 'extra'], from: 'data.train' };
  const ix = indexFolder(dir, 'data.eval', EXTS, fixed);
  assert.deepEqual(ix.classes, fixed.classes);
  assert.deepEqual([...ix.labels], [3, 2, 1, 0, 0, 0]);
  assert.throws(
    () => indexFolder(dir, 'data.eval', EXTS, { classes: ['ant', 'Zulu', '9'], from: 'data.train' }),
    (e: Error & { code?: string }) =>
      e.code === 'E_DATA' && e.message === `data.eval: class folder ${path.join(dir, '10')} is not one of the 3 classes of data.train ("ant", "Zulu", "9")`,
  );
});
