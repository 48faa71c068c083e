// A folder that cannot be indexed says why and where: no images (the folder and the extensions
// looked for), a symlink loop (the link and the folder it leads back to); an empty class folder
// is a warning naming it (the class keeps its index).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { indexFolder } from '../../src/data/images/folder-index.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'images-folder-errors-'));
process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));
const EXTS = ['.jpg', '.png'];
const folder = (name: string, files: string[]) => {
  const d = path.join(root, name);
  fs.mkdirSync(d, { recursive: true });
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(d, f)), { recursive: true });
    fs.writeFileSync(path.join(d, f), 'x');
  }
  return d;
};
const dataError = (message: string) => (e: Error & { code?: string; exitCode?: number }) => {
  assert.equal(e.code, 'E_DATA');
  assert.equal(e.exitCode, 2);
  assert.equal(e.message, message);
  return true;
};

test('no images: the folder, its class folders and the extensions looked for', () => {
  const d = folder('none', ['cat/a.txt', 'dog/b.gif']);
  assert.throws(
    () => indexFolder(d, 'data.train', EXTS, null),
    dataError(`data.train: no images in ${d} (2 class folders; looked for .jpg .png, any case); found 2 other files (gif 1, txt 1)`),
  );
  const flat = folder('flat', ['a.jpg']);
  assert.throws(
    () => indexFolder(flat, 'data.train', EXTS, null),
    dataError(
      `data.train: no images in ${flat} (0 class folders; looked for .jpg .png, any case); found 1 other file (jpg 1), of which 1 image outside any class folder (e.g. ${path.join(flat, 'a.jpg')})`,
    ),
  );
});

test('an empty class folder is a warning naming it, and keeps its class index', () => {
  const d = folder('empty', ['a/1.png', 'c/2.png']);
  fs.mkdirSync(path.join(d, 'b'));
  const ix = indexFolder(d, 'data.train', EXTS, null);
  assert.deepEqual(ix.classes, ['a', 'b', 'c']);
  assert.deepEqual([...ix.labels], [0, 2]);
  assert.deepEqual(ix.found.warnings, [`warning: data.train: class folder ${path.join(d, 'b')} holds no images (.jpg .png)`]);
});

test('a symlink loop is an error naming the link, not a hang', () => {
  const d = folder('loop', ['a/1.png']);
  fs.symlinkSync('..', path.join(d, 'a', 'up'));
  assert.throws(
    () => indexFolder(d, 'data.train', EXTS, null),
    dataError(`symlink loop: ${path.join(d, 'a', 'up')} leads back to ${fs.realpathSync(d)} (a folder it is inside)`),
  );
});
