// The line a CSV message names is the physical line of the file (the header is line 1): LF, CRLF
// and a lone CR each end one line, inside a quoted field as well as between records; blank lines
// and a UTF-8 byte order mark are counted as they are in an editor; a record whose quoted fields
// hold line breaks is named by the line it starts on, an unclosed quote by the line it opens on,
// and text after a closing quote by the line of that quote.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadCsv } from '../../src/data/csv.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-lines-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** The message loading `text` fails with, without the key path and file in front. */
async function failure(text: string, labelType: 'index' | 'class' = 'index'): Promise<string> {
  const file = path.join(dir, `t${n++}.csv`);
  fs.writeFileSync(file, text);
  try {
    await loadCsv({ type: 'csv', path: file, label: 'label', labelType }, 'data.train');
  } catch (err) {
    const prefix = `data.train: ${file} `;
    assert.ok((err as Error).message.startsWith(prefix), (err as Error).message);
    return (err as Error).message.slice(prefix.length);
  }
  return assert.fail(`${JSON.stringify(text)} loaded`);
}

test('LF, CRLF and lone CR files name the same line', async () => {
  for (const nl of ['\n', '\r\n', '\r']) {
    const text = ['a,label', '1,0', '2,1', '3,x', ''].join(nl);
    assert.equal(
      await failure(text),
      'line 4, column "label": "x" is not a class index (expected a non-negative integer with labelType \'index\')',
      JSON.stringify(nl),
    );
  }
});

test('a line break inside a quoted field is one line, whichever it is', async () => {
  for (const nl of ['\n', '\r\n', '\r']) {
    // the class name "c<nl>d" spans lines 2 and 3; the bad row is line 4
    const text = `a,label${nl}1,"c${nl}d"${nl}y,e${nl}`;
    assert.match(await failure(text, 'class'), /^line 4, column "a": "y" is not a number$/, JSON.stringify(nl));
  }
  // a field that starts or ends with a line break
  assert.match(await failure('a,label\n1,"\nc\n"\nw,d\n', 'class'), /^line 5, column "a": "w" is not a number$/);
  assert.match(await failure('a,label\r1,"\rc"\rw,d\r', 'class'), /^line 4, column "a": "w" is not a number$/);
  // two CRLFs inside one field, in a CRLF file: two lines, not four
  assert.match(await failure('a,label\r\n1,"c\r\n\r\n"\r\nz,d\r\n', 'class'), /^line 5, column "a": "z" is not a number$/);
});

test('a bad value in a record spanning lines is named by the line the record starts on', async () => {
  assert.match(await failure('a,label,b\r\n1,c,2\r\n3,"c\r\nd",x\r\n', 'class'), /^line 3, column "b": "x" is not a number$/);
});

test('blank lines and a byte order mark before the header are counted as lines', async () => {
  assert.match(await failure('\ufeff\r\n\r\na,label\r\n\r\n1,x\r\n'), /^line 5, column "label": "x" is not a class index/);
  assert.match(await failure('\ufeffa,label\n1,x\n'), /^line 2, column "label"/);
  assert.match(await failure('\r\n\n\ra,label\n1,x\n'), /^line 5, column "label"/);
});

test('an unclosed quote is named by the line it opens on, after earlier multi-line fields', async () => {
  for (const nl of ['\n', '\r\n', '\r']) {
    const text = `label,a${nl}c,1${nl}${nl}"d,2${nl}e,3${nl}`;
    assert.match(await failure(text, 'class'), /^line 4: a quoted field is never closed/, JSON.stringify(nl));
  }
  assert.match(await failure('a,label\r\n1,"c\r\nd"\r\n"3,0\r\n4,1\r\n', 'class'), /^line 4: a quoted field is never closed/);
  assert.match(await failure('label,b,a\n"c\nd","3,0\n', 'class'), /^line 3: a quoted field is never closed/);
});

test('text after a closing quote is named by the line of that quote', async () => {
  // in the first column, after blank lines of each kind, and in a header after a byte order mark
  for (const nl of ['\n', '\r\n', '\r']) {
    const text = `label,a${nl}c,1${nl}${nl}${nl}"d${nl}e"x,2${nl}`;
    assert.match(await failure(text, 'class'), /^line 6: unexpected "x" after the closing quote of a field \(column "label"\)/, JSON.stringify(nl));
  }
  assert.match(await failure('\ufeff"a"x,label\n1,0\n'), /^line 1: unexpected "x" after the closing quote of a field \(column 1\)/);
  assert.match(await failure('\ufeffa,"b"x,label\n1,2,0\n'), /^line 1: unexpected "x" after the closing quote of a field \(column 2\)/);
  // a doubled quote before it is a quote in the text, not the closing one
  assert.match(await failure('label,a\n"c""\nd"x,0\n', 'class'), /^line 3: unexpected "x" after the closing quote of a field \(column "label"\)/);
  assert.match(await failure('label,a\r\n"c\r\nd"x,0\r\n', 'class'), /^line 3: unexpected "x" after the closing quote of a field \(column "label"\)/);
  assert.match(await failure('label,b,a\n"c\nd","3\n4"5,0\n', 'class'), /^line 4: unexpected "5" after the closing quote of a field \(column "b"\)/);
});
