import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadCsv } from '../../src/data/csv.ts';
import { DataError } from '../../src/shared/errors.ts';

let dir: string;
let n = 0;
test.before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-errors-'));
});
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(text: string): string {
  const file = path.join(dir, `t${n++}.csv`);
  fs.writeFileSync(file, text);
  return file;
}

/** Loading `text` fails with a DataError (code E_DATA, exit 2) whose message names the key path and file and matches `re`. */
async function rejects(text: string, re: RegExp, opts: { label?: string; labelType?: 'index' | 'float'; hint?: RegExp } = {}): Promise<void> {
  const file = write(text);
  await assert.rejects(loadCsv({ type: 'csv', path: file, label: opts.label ?? 'label', labelType: opts.labelType ?? 'index' }, 'data.eval'), (e: unknown) => {
    assert.ok(e instanceof DataError, `expected a DataError, got ${String(e)}`);
    assert.equal(e.code, 'E_DATA');
    assert.equal(e.exitCode, 2);
    assert.ok(e.message.startsWith(`data.eval: ${file} `), e.message);
    assert.match(e.message, re);
    if (opts.hint) assert.match(e.hint ?? '', opts.hint);
    return true;
  });
}

test('a missing label column lists the header columns and the config key', async () => {
  await rejects('a,b,"c d"\n1,2,3\n', /line 1: the header has no column "label" \(data\.eval\.label\); its columns are "a", "b", "c d"$/, {
    hint: /data\.eval\.label/,
  });
  await rejects('\n\na,b\n1,2\n', /line 3: the header has no column "label"/);
});

test('a label column named twice, or no feature column, is refused', async () => {
  await rejects('label,a,label\n1,2,3\n', /line 1: the header names the label column "label" more than once/);
  await rejects('label\n1\n', /line 1: the header has only the label column "label" \(expected at least one feature column\)/);
});

test('a row with the wrong number of fields names its line, expected and got', async () => {
  await rejects('a,b,label\n1,2,0\n3,4\n', /line 3: expected 3 fields \(one per header column\), got 2$/, { hint: /every row needs a value for every column/ });
  await rejects('a,b,label\r\n1,2,0\r\n3,4,5,6\r\n', /line 3: expected 3 fields \(one per header column\), got 4$/, { hint: /quoted/ });
  // line numbers count blank lines and the line breaks inside quoted fields
  await rejects('a,b,label\n\n1,2,0\n3,4\n', /line 4: expected 3 fields/);
  await rejects('"a\r\nb",c,label\r\n1,2,0\r\n3,4\r\n', /line 4: expected 3 fields/);
  // a record spanning lines is named by the line it starts on
  await rejects('a,b,label\n1,2,0\n3,"4\n\n",0,9\n', /line 3: expected 3 fields/);
  // a wrong field count is reported before a bad value in the same row
  await rejects('a,b,label\n1,x\n', /line 2: expected 3 fields/);
});

test('a non-numeric value names the line, the column and the text', async () => {
  await rejects('a,b,label\n1,2,0\n3,abc,1\n', /line 3, column "b": "abc" is not a number$/);
  await rejects('a,b,label\n1,,0\n', /line 2, column "b": "" is not a number$/, { hint: /missing values/ });
  await rejects('a,b,label\n1,2,0\n1,NaN,0\n', /line 3, column "b": "NaN" is not a number/);
  await rejects('a,b,label\n1,0x10,0\n', /line 2, column "b": "0x10" is not a number/);
  await rejects('a,b,label\n1,1e,0\n', /line 2, column "b": "1e" is not a number/);
  await rejects('a,b,label\n1,2,0\n1,2,\n', /line 3, column "label": "" is not a number/);
  await rejects('a,b,label\n1,1e39,0\n', /line 2, column "b": "1e39" does not fit float32/);
  await rejects('a,b,label\n1,"2""",0\n', /line 2, column "b": "2\\"" is not a number/);
  for (const text of ['.', '-', '+.', 'e3', '1e5x', '1.2.3', '--1', '1 2', '1e+']) {
    await rejects(`a,b,label\n1,${text},0\n`, new RegExp(`line 2, column "b": ${JSON.stringify(text).replace(/[.+]/g, '\\$&')} is not a number$`));
  }
  // a long text is shown shortened
  await rejects(`a,b,label\n1,${'x'.repeat(100)},0\n`, new RegExp(`line 2, column "b": "${'x'.repeat(60)}\\.\\.\\." is not a number$`));
  // a float label: its text, and its range
  await rejects('a,label\n1,abc\n', /line 2, column "label": "abc" is not a number$/, { labelType: 'float' });
  await rejects('a,label\n1,-1e39\n', /line 2, column "label": "-1e39" does not fit float32/, { labelType: 'float' });
});

test('class-index labels must be non-negative integers', async () => {
  await rejects('a,label\n1,0\n2,1.5\n', /line 3, column "label": "1\.5" is not a class index \(expected a non-negative integer with labelType 'index'\)$/, {
    hint: /data\.eval\.labelType: float/,
  });
  await rejects('a,label\n1,-1\n', /line 2, column "label": "-1" is not a class index/);
  await rejects('a,label\n1,3e9\n', /line 2, column "label": "3e9" is not a class index/);
  await rejects('a,label\n1,2147483647\n2,2147483648\n', /line 3, column "label": "2147483648" is not a class index/);
  // a blank label is a missing value, not a class name
  await rejects('a,label\n1, \n', /line 2, column "label": " " is not a number$/, { hint: /missing values/ });
});

test('a class name in a label column read as indices points to labelType: class', async () => {
  await rejects('a,label\n1,0\n2,cat\n', /line 3, column "label": "cat" is not a class index \(expected a non-negative integer with labelType 'index'\)$/, {
    hint: /set data\.eval\.labelType: class/,
  });
});

test('an empty file, a BOM or blank lines only, and a header without rows', async () => {
  await rejects('', /is empty \(expected a header line/);
  await rejects('\ufeff', /is empty/);
  await rejects('\n\r\n\n', /is empty/);
  await rejects('a,label\n', /has a header but no data rows/);
  await rejects('a,label', /has a header but no data rows/);
  await rejects('\n\na,label\n\n', /has a header but no data rows \(expected one line per sample after the header on line 3\)/);
});

test('quoting errors: an unclosed quote, text after a closing quote', async () => {
  await rejects('a,label\n1,0\n"2,0\n3,1\n', /line 3: a quoted field is never closed/, { hint: /close the field/ });
  await rejects('a,label\n"1"x,0\n', /line 2: unexpected "x" after the closing quote of a field \(column "a"\)/, {
    hint: /a quote inside a quoted field is written twice/,
  });
  await rejects('"a"b,label\n', /line 1: unexpected "b" after the closing quote of a field \(column 1\)/);
});

test('a missing file or a directory', async () => {
  const missing = path.join(dir, 'missing.csv');
  await assert.rejects(loadCsv({ type: 'csv', path: missing, label: 'y', labelType: 'index' }, 'data.train'), (e: unknown) => {
    assert.ok(e instanceof DataError && e.code === 'E_DATA');
    assert.equal(e.message, `data.train: ${missing}: no such file`);
    return true;
  });
  await assert.rejects(loadCsv({ type: 'csv', path: dir, label: 'y', labelType: 'index' }, 'data.train'), (e: unknown) => {
    assert.ok(e instanceof DataError && e.code === 'E_DATA');
    assert.equal(e.message, `data.train: ${dir}: is a directory, expected a CSV file`);
    return true;
  });
});

test('a long header is listed shortened', async () => {
  const names = Array.from({ length: 100 }, (_, i) => `pixel${i}`);
  await rejects(`${names.join(',')}\n${names.map(() => 0).join(',')}\n`, /its columns are "pixel0", .*"pixel29", \.\.\. \(100 in all\)$/);
});
