// A class name whose bytes are not UTF-8 is refused naming its line; decoded leniently it would
// silently become U+FFFD and a class of its own.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadCsv } from '../../src/data/csv.ts';

test('a class name with a byte that is not UTF-8 names the line and the column', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-utf8-'));
  const file = path.join(dir, 'pets.csv');
  // "café" in Latin-1 (0xE9 alone is not UTF-8); "café" in UTF-8 on the line before is fine.
  const text = Buffer.concat([Buffer.from('a,label\n1,cat\n2,caf\u00e9\n3,caf'), Buffer.from([0xe9]), Buffer.from('\n4,dog\n')]);
  fs.writeFileSync(file, text);
  await assert.rejects(
    loadCsv({ type: 'csv', path: file, label: 'label', labelType: 'class' }, 'data.train'),
    (err: Error & { code?: string; hint?: string }) => {
      assert.equal(err.code, 'E_DATA');
      assert.equal(err.message, `data.train: ${file} line 4, column "label": the class name "caf\uFFFD" is not valid UTF-8 (U+FFFD marks the bytes)`);
      assert.match(err.hint ?? '', /save the file as UTF-8/);
      return true;
    },
  );
  fs.rmSync(dir, { recursive: true });
});
