// data.<split>.weight names a CSV column of per-row sample weights: that column is read as the
// weights (float32 [n]) and is not a feature; a weight that is negative, not finite or not a
// number is an error naming the line, the column and the text, as are a weight column the
// header lacks, one that is the label column, and a header with no feature column left.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadCsv } from '../../src/data/csv.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-weight-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;

const load = (text: string, weight = 'w') => {
  const file = path.join(dir, `t${n++}.csv`);
  fs.writeFileSync(file, text);
  return { file, loading: loadCsv({ type: 'csv', path: file, label: 'label', labelType: 'index', weight }, 'data.train') };
};

async function rejects(text: string, message: string, hint?: RegExp, weight = 'w'): Promise<void> {
  const { file, loading } = load(text, weight);
  await assert.rejects(loading, (e: Error & { code?: string; hint?: string }) => {
    assert.equal(e.code, 'E_DATA');
    assert.equal(e.message, `data.train: ${file} ${message}`);
    if (hint) assert.match(e.hint ?? '', hint);
    return true;
  });
}

test('the weight column gives the weights and is not a feature, wherever it is', async () => {
  const ds = await load('a,w,b,label\n1,0.5,2,0\n3,0,4,1\n5,2e0,6,2\n').loading;
  assert.deepEqual(ds.features.toArray(), { dtype: 'float32', shape: [3, 2], data: Float32Array.of(1, 2, 3, 4, 5, 6) });
  assert.deepEqual(ds.weights, { dtype: 'float32', shape: [3], data: Float32Array.of(0.5, 0, 2) });
  assert.match(ds.source, /\(label column "label", weight column "w"\)$/);
  const spaced = await load('a, w ,label\n1,0.25,0\n', 'w').loading;
  assert.deepEqual([...spaced.weights!.data], [0.25]);
  const first = await load('w,a,label\n3,1,0\n').loading;
  assert.deepEqual([...first.weights!.data], [3]);
  assert.deepEqual([...first.features.data], [1]);
});

test('a weight that is negative, not finite or not a number names line, column and text', async () => {
  await rejects(
    'a,w,label\n1,1,0\n2,-0.5,1\n',
    'line 3, column "w": "-0.5" is not a sample weight (expected a finite number >= 0)',
    /0 leaves a row out of the loss/,
  );
  await rejects('a,w,label\n1,1e39,0\n', 'line 2, column "w": "1e39" is not a sample weight (expected a finite number >= 0)');
  await rejects('a,w,label\n1,,0\n', 'line 2, column "w": "" is not a number', /missing values/);
});

test('a weight column the header lacks, that is the label column, or that leaves no feature', async () => {
  await rejects('a,label\n1,0\n', `line 1: the header has no column "w" (data.train.weight); its columns are "a", "label"`, /set data\.train\.weight/);
  await rejects('a,label\n1,0\n', 'line 1: data.train.weight and data.train.label name the same column "label"', undefined, 'label');
  await rejects('w,label\n1,0\n', 'line 1: the header has only the label and weight columns (expected at least one feature column)');
  await rejects('a,w,w,label\n1,1,1,0\n', `line 1: the header names the weight column "w" more than once; its columns are "a", "w", "w", "label"`, /rename/);
});
