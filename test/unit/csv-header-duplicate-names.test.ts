// Two header columns of one name are refused naming the file, both columns and the name: the
// second would be a feature no one can tell from the first.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadCsv } from '../../src/data/csv.ts';

test('a feature column name given twice names both columns, the name and the file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-dup-header-'));
  const file = path.join(dir, 'iris.csv');
  fs.writeFileSync(file, 'sepal,petal,width,petal,label\n1,2,3,4,0\n5,6,7,8,1\n');
  await assert.rejects(
    loadCsv({ type: 'csv', path: file, label: 'label', labelType: 'index' }, 'data.train'),
    (err: Error & { code?: string; hint?: string; exitCode?: number }) => {
      assert.equal(err.code, 'E_DATA');
      assert.equal(err.exitCode, 2);
      assert.equal(err.message, `data.train: ${file} line 1: columns 2 and 4 of the header are both named "petal"`);
      assert.match(err.hint ?? '', /a name of its own/);
      return true;
    },
  );
  fs.rmSync(dir, { recursive: true });
});
