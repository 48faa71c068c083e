import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadCsv } from '../../src/data/csv.ts';
import { loadDataset } from '../../src/data/dataset.ts';

let dir: string;
let n = 0;
test.before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-parse-'));
});
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(text: string | Uint8Array): string {
  const file = path.join(dir, `t${n++}.csv`);
  fs.writeFileSync(file, text);
  return file;
}

const load = (text: string | Uint8Array, label = 'label', labelType: 'index' | 'float' = 'index') =>
  loadCsv({ type: 'csv', path: write(text), label, labelType }, 'data.train');

test('reads features as float32 [n, columns-1] and class indices as int32 [n]', async () => {
  const ds = await load('a,b,label\n1,2.5,0\n-3,4e-1,2\n');
  assert.equal(ds.count, 2);
  assert.deepEqual(ds.features.toArray(), { dtype: 'float32', shape: [2, 2], data: Float32Array.of(1, 2.5, -3, 0.4) });
  assert.deepEqual(ds.labels.toArray(), { dtype: 'int32', shape: [2], data: Int32Array.of(0, 2) });
  assert.match(ds.source, /t\d+\.csv/);
});

test('the label column may be anywhere; features keep the header order without it', async () => {
  const first = await load('label,a,b\n1,10,20\n0,30,40');
  assert.deepEqual([...first.features.data], [10, 20, 30, 40]);
  assert.deepEqual([...first.labels.data], [1, 0]);
  const middle = await load('a,y,b\n10,1,20\n30,0,40', 'y');
  assert.deepEqual([...middle.features.data], [10, 20, 30, 40]);
  assert.deepEqual([...middle.labels.data], [1, 0]);
});

test("labelType 'float' gives float32 [n, 1] labels", async () => {
  const ds = await load('x,target\n1,0.25\n2,-1.5e2\n3,7\n', 'target', 'float');
  assert.deepEqual(ds.labels.toArray(), { dtype: 'float32', shape: [3, 1], data: Float32Array.of(0.25, -150, 7) });
  assert.deepEqual(ds.features.shape, [3, 1]);
});

test('quoted fields: embedded commas, doubled quotes and line breaks in header names; quoted numbers', async () => {
  const ds = await load('"a,1","say ""hi""","multi\nline",label\n"1","2", 3 ,"0"\n4,5,6,1\n');
  assert.deepEqual([...ds.features.data], [1, 2, 3, 4, 5, 6]);
  assert.deepEqual([...ds.labels.data], [0, 1]);
  const named = await load('"a,1","the ""label""",b\n1,2,3\n', 'the "label"');
  assert.deepEqual([...named.features.data], [1, 3]);
  assert.deepEqual([...named.labels.data], [2]);
});

test('CRLF, lone CR, a BOM, no trailing newline, several trailing newlines and blank lines', async () => {
  const want = [1, 2, 3, 4];
  for (const text of [
    'a,b,label\r\n1,2,0\r\n3,4,1\r\n',
    'a,b,label\r1,2,0\r3,4,1',
    '\ufeffa,b,label\n1,2,0\n3,4,1\n',
    'a,b,label\n1,2,0\n3,4,1',
    'a,b,label\n1,2,0\n\n3,4,1\n\n\n',
    '\n\r\na,b,label\r\n1,2,0\r\n\r\n3,4,1\r\n\r\n',
  ]) {
    const ds = await load(text);
    assert.deepEqual([...ds.features.data], want, JSON.stringify(text));
    assert.deepEqual([...ds.labels.data], [0, 1], JSON.stringify(text));
  }
  const bom = await load(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('label,x\n1,2\n')]));
  assert.deepEqual([...bom.labels.data], [1]);
});

test('numbers are parsed exactly as Number() would, then rounded to float32', async () => {
  const values = [
    '+1',
    '-0.5',
    '.5',
    '5.',
    '1e3',
    '1E-3',
    ' 2 ',
    '\t3\t',
    '0.1',
    '123456789012345678901234567890',
    '3.4028234663852886e38',
    '-1.00000000000000000001',
    '0.000000000000000000000000000001',
    '-0',
    '9007199254740993',
    '123.456e-5',
  ];
  const ds = await load(`${values.map((_, i) => `c${i}`).join(',')},label\n${values.join(',')},0\n`);
  assert.deepEqual(
    [...ds.features.data],
    values.map((v) => Math.fround(Number(v))),
  );
  assert.ok(Object.is(ds.features.data[13], -0));
});

test('a large file streams in chunks with the same result as a small read', async () => {
  const rows = 60_000;
  const lines = ['f0,"f 1",label'];
  for (let r = 0; r < rows; r++) lines.push(`${(r * 0.37).toFixed(3)},"${-r}",${r % 7}`);
  const ds = await load(lines.join('\r\n') + '\r\n');
  assert.equal(ds.count, rows);
  assert.deepEqual(ds.features.shape, [rows, 2]);
  for (const r of [0, 1, 29_999, 43_690, rows - 1]) {
    assert.equal(ds.features.data[2 * r], Math.fround(Number((r * 0.37).toFixed(3))));
    assert.equal(ds.features.data[2 * r + 1], r === 0 ? 0 : -r);
    assert.equal(ds.labels.data[r], r % 7);
  }
});

test('loadDataset dispatches type csv', async () => {
  const ds = await loadDataset({ type: 'csv', path: write('x,label\n1,0\n'), label: 'label', labelType: 'index' }, 'data.eval');
  assert.equal(ds.count, 1);
});
