// A file is read in chunks of 1 MiB and only the bytes of the record being read are kept: a
// quoting error or a class name's bytes several chunks into a file are found in what is kept,
// and named by the same line as in a small file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadCsv } from '../../src/data/csv.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-late-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));

const ROWS = 150_000; // about 3.3 MiB of "<row>,<class>\r\n" lines, with a two-line class name every 1000 rows
const lines = ['x,label'];
for (let r = 0; r < ROWS; r++) lines.push(`${r},${r % 1000 === 999 ? '"two\r\nlines"' : 'c'}`);
const body = `${lines.join('\r\n')}\r\n`;
const LAST = lines.length + ROWS / 1000; // the line the last row ends on

function write(name: string, ...parts: (string | Buffer)[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))));
  return file;
}

async function message(file: string): Promise<string> {
  try {
    await loadCsv({ type: 'csv', path: file, label: 'label', labelType: 'class' }, 'data.train');
  } catch (err) {
    return (err as Error).message.slice(`data.train: ${file} `.length);
  }
  return assert.fail('loaded');
}

test('text after a closing quote, 3 MiB in', async () => {
  const file = write('closing.csv', body, '\r\n1,"cat\r\n"x\r\n');
  assert.equal(
    await message(file),
    `line ${LAST + 3}: unexpected "x" after the closing quote of a field (column "label") (expected ',' or the end of the line)`,
  );
});

test('an unclosed quote, 3 MiB in', async () => {
  const file = write('unclosed.csv', body, '1,c\r\n2,"cat\r\n3,c\r\n');
  assert.equal(await message(file), `line ${LAST + 2}: a quoted field is never closed (the file ends inside it)`);
});

test('a class name of U+FFFD as UTF-8 is kept, one of bytes that are not UTF-8 refused, 3 MiB in', async () => {
  const kept = await loadCsv({ type: 'csv', path: write('fffd.csv', body, '1,\uFFFD\r\n'), label: 'label', labelType: 'class' }, 'data.train');
  assert.deepEqual(kept.classes, ['c', 'two\r\nlines', '\uFFFD']);
  const file = write('latin1.csv', body, '1,caf', Buffer.from([0xe9]), '\r\n');
  assert.equal(await message(file), `line ${LAST + 1}, column "label": the class name "caf\uFFFD" is not valid UTF-8 (U+FFFD marks the bytes)`);
});
