// An image list CSV is read with RFC 4180 quoting, as predict writes it: a quoted path holds
// commas and "" (one quote), and its quotes are not part of the path; a first line that is a
// header other than path,label names the header expected rather than a missing image.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { indexList } from '../../src/data/images/list-index.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('images-list-quoted');
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
for (const f of ['x,y.jpg', 'say "hi".png', 'plain.png']) fs.writeFileSync(path.join(dir, f), 'x');
const list = (name: string, text: string) => {
  fs.writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};

test('quoted paths are read without their quotes, "" as one quote', () => {
  const ix = indexList(list('q.csv', 'path,label\n"x,y.jpg",a\r\n"say ""hi"".png", "b"\nplain.png,a\n'), 'data.train', null);
  assert.deepEqual(
    [0, 1, 2].map((i) => ix.paths.file(i)),
    ['x,y.jpg', 'say "hi".png', 'plain.png'].map((f) => path.join(dir, f)),
  );
  assert.deepEqual(ix.classes, ['a', 'b']);
  assert.deepEqual([...ix.labels], [0, 1, 0]);
});

test('a quote left open names its line', () => {
  assert.throws(
    () => indexList(list('open.csv', 'plain.png,a\n"x,y.jpg,a\n'), 'data.train', null),
    (e: Error & { code?: string }) => e.code === 'E_DATA' && /open\.csv line 2: a quoted field is not closed/.test(e.message),
  );
});

test('a header other than path,label names the expected header', () => {
  assert.throws(
    () => indexList(list('h.csv', 'filename,class\nplain.png,a\n'), 'data.train', null),
    (e: Error & { code?: string }) =>
      e.code === 'E_DATA' && /h\.csv line 1: the header "filename,class" is not path,label/.test(e.message) && !/image not found/.test(e.message),
  );
});
