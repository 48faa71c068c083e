// U+FFFD written in a file as UTF-8 (EF BF BD) is a character like any other in a class name;
// only bytes that are not UTF-8 are refused. Which it is, is decided on the label field's own
// bytes: bytes that are not UTF-8 in another field of the row are that field's error.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadCsv } from '../../src/data/csv.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-fffd-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, ...parts: (string | number[])[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p)))));
  return file;
}

test('a class name holding U+FFFD as UTF-8 is a class, quoted or not, after blank lines', async () => {
  const file = write('ok.csv', 'label,x\r\n\uFFFD,1\r\n\r\n"caf\uFFFD ""x""\r\n",2\r\ncat,3\r\n');
  const ds = await loadCsv({ type: 'csv', path: file, label: 'label', labelType: 'class' }, 'data.train');
  assert.deepEqual(ds.classes, ['caf\uFFFD "x"\r\n', 'cat', '\uFFFD']);
  assert.deepEqual([...ds.labels.toArray().data], [2, 0, 1]);
  assert.deepEqual(ds.classLines, [4, 6, 2]); // the line each class is first on
});

test("a bad byte in another field of the row is that field's error, not the class name's", async () => {
  const file = write('other.csv', 'label,x\n\uFFFD,', [0xe9], '\n');
  await assert.rejects(loadCsv({ type: 'csv', path: file, label: 'label', labelType: 'class' }, 'data.train'), (e: Error) => {
    assert.equal(e.message, `data.train: ${file} line 2, column "x": "\uFFFD" is not a number`);
    return true;
  });
});
