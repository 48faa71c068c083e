// With labelType: class, an empty label (nothing, or only spaces and tabs, quoted or not) is a
// missing label, refused naming its line and column with a hint, never a class named "".
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadCsv } from '../../src/data/csv.ts';

test('an empty class name names its line and column', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-empty-class-'));
  try {
    for (const [i, empty] of ['', ' \t ', '""', '" "'].entries()) {
      const file = path.join(dir, `t${i}.csv`);
      fs.writeFileSync(file, `x,label\n1,cat\n2,${empty}\n`);
      await assert.rejects(
        loadCsv({ type: 'csv', path: file, label: 'label', labelType: 'class' }, 'data.train'),
        (e: Error & { code?: string; hint?: string }) => {
          assert.equal(e.code, 'E_DATA');
          assert.equal(e.message, `data.train: ${file} line 3, column "label": the class name is empty`, JSON.stringify(empty));
          assert.match(e.hint ?? '', /every row needs its label/);
          return true;
        },
      );
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
