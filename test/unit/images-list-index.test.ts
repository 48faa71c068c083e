// data.<split>: { type: images, list: x.csv }: lines of path,label (an optional first line
// `path,label`), paths relative to the CSV's folder, the label a class name after the last
// comma; classes are the sorted names, labels their indices; a missing image or a line without
// a label names the file and the line.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { indexList } from '../../src/data/images/list-index.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-list-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
for (const f of ['img/a.png', 'img/b, c.jpg', 'img/d.JPG']) {
  fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
  fs.writeFileSync(path.join(dir, f), 'x');
}
const list = (name: string, text: string) => {
  fs.writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};
const dataError = (message: string) => (e: Error & { code?: string }) => e.code === 'E_DATA' && e.message === message;

test('paths relative to the CSV, class names sorted by code point, labels their indices', () => {
  const file = list('train.csv', 'path,label\nimg/a.png, zebra\r\nimg/b, c.jpg,Ant\n\nimg/d.JPG,zebra\n');
  const ix = indexList(file, 'data.train', null);
  assert.deepEqual(ix.classes, ['Ant', 'zebra']);
  assert.deepEqual([...ix.labels], [1, 0, 1]);
  assert.deepEqual(
    [0, 1, 2].map((i) => ix.paths.file(i)),
    ['img/a.png', 'img/b, c.jpg', 'img/d.JPG'].map((f) => path.join(dir, f)),
  );
  assert.equal(ix.found.describeImages(), '3 images (jpg 2, png 1)');
});

test('a missing image, a line without a label, a class the training set lacks: the file and line', () => {
  const missing = list('missing.csv', 'img/a.png,cat\nimg/nope.png,cat\n');
  assert.throws(() => indexList(missing, 'data.train', null), dataError(`data.train: ${missing} line 2: image not found: ${path.join(dir, 'img/nope.png')}`));
  const bare = list('bare.csv', 'img/a.png\n');
  assert.throws(() => indexList(bare, 'data.train', null), dataError(`data.train: ${bare} line 1: expected path,label, got "img/a.png"`));
  const evalList = list('eval.csv', 'img/a.png,cat\nimg/d.JPG,emu\n');
  assert.throws(
    () => indexList(evalList, 'data.eval', { classes: ['cat', 'dog'], from: 'data.train' }),
    dataError(`data.eval: ${evalList} line 2: class "emu" (of img/d.JPG) is not one of the 2 classes of data.train ("cat", "dog")`),
  );
});
