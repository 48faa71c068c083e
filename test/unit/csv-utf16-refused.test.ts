// A CSV that starts with a UTF-16 byte order mark (FF FE, as some spreadsheets save "Unicode
// text") is refused with a message that says so and how to save it, not read as UTF-8 garbage
// or half-supported: class names and the positions in messages are UTF-8's.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadCsv } from '../../src/data/csv.ts';

test('a UTF-16 byte order mark: E_DATA naming the file, with a hint to save it as UTF-8', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-utf16-'));
  const file = path.join(dir, 'pets.csv');
  fs.writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a,label\n1,cat\n2,dog\n', 'utf16le')]));
  await assert.rejects(
    loadCsv({ type: 'csv', path: file, label: 'label', labelType: 'class' }, 'data.train'),
    (e: Error & { code?: string; hint?: string }) => {
      assert.equal(e.code, 'E_DATA');
      assert.equal(e.message, `data.train: ${file} starts with a UTF-16 byte order mark (FF FE): expected UTF-8 text`);
      assert.match(e.hint ?? '', /save the file as UTF-8/);
      return true;
    },
  );
  fs.rmSync(dir, { recursive: true });
});
