// A '"' in the middle of a field that does not start with one is refused (RFC 4180: a field
// holding quotes is quoted), naming the line, the column and the text before the quote, with a
// hint on how such a field is written: read as it stands, 5'10" would be a class name other
// rows spell "5'10""".
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadCsv } from '../../src/data/csv.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-inner-quote-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));

async function rejects(name: string, text: string, message: string): Promise<void> {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  await assert.rejects(
    loadCsv({ type: 'csv', path: file, label: 'height', labelType: 'class' }, 'data.train'),
    (e: Error & { code?: string; hint?: string }) => {
      assert.equal(e.code, 'E_DATA');
      assert.equal(e.message, `data.train: ${file} ${message}`);
      assert.equal(e.hint, 'a field holding a quote is quoted, its quotes written twice: "say ""hi"""');
      return true;
    },
  );
}

test('a quote inside an unquoted value names its line, column and the text before it', async () => {
  await rejects(
    'row.csv',
    'x,height\r\n1,"5\'9"""\r\n\r\n2,5\'10"\r\n',
    `line 4, column "height": a '"' in the middle of a field that is not quoted (after "5'10")`,
  );
});

test('in the header, the column is named by its number', async () => {
  await rejects('header.csv', 'x,say "hi",height\n1,2,a\n', `line 1, column 2: a '"' in the middle of a field that is not quoted (after "say ")`);
});
