// labelType: class without data.classes: the class names of data.train, sorted by code point (as
// scikit-learn's LabelEncoder: np.unique), become indices 0..K-1; the labels are int32 indices
// into that list, whatever order the names first appear in. Spaces around a name are ignored,
// a quoted name may hold a comma, and evalFraction's held-out rows share the mapping.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadSplits } from '../../src/data/splits.ts';
import { validateConfig } from '../../src/config/validate.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-class-sorted-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.mjs'), '');

const config = (data: Record<string, unknown>) =>
  validateConfig(
    {
      model: { module: './model.mjs' },
      loss: 'sparseCategoricalCrossentropy',
      data,
      training: { batchSize: 2 },
      optimizer: { name: 'sgd' },
    },
    { configPath: path.join(dir, 'exp.yaml'), cwd: dir },
  );

// First seen: zebra, Émile, ant, "b, c", Zulu, 10, 9. Sorted by code point, written out here by
// hand: digits < upper case < lower case < 'É' (U+00C9).
const ROWS: Array<[number, string]> = [
  [1, 'zebra'],
  [2, ' Émile '],
  [3, 'ant'],
  [4, '"b, c"'],
  [5, 'Zulu'],
  [6, 'zebra'],
  [7, '10'],
  [8, '9'],
  [9, 'ant'],
];
const SORTED = ['10', '9', 'Zulu', 'ant', 'b, c', 'zebra', 'Émile'];
const NAME_OF_ROW = ['zebra', 'Émile', 'ant', 'b, c', 'Zulu', 'zebra', '10', '9', 'ant'];

test('the sorted names of data.train are the classes; labels are indices into them', async () => {
  fs.writeFileSync(path.join(dir, 'train.csv'), `x,label\n${ROWS.map(([x, l]) => `${x},${l}`).join('\n')}\n`);
  const { train, classes } = await loadSplits(config({ train: { type: 'csv', path: './train.csv', label: 'label', labelType: 'class' } }));
  assert.deepEqual(classes?.classes, SORTED);
  assert.equal(classes.from, 'data.train');
  assert.equal(train.labels.dtype, 'int32');
  assert.deepEqual(train.labels.shape, [ROWS.length]);
  assert.deepEqual(
    [...train.labels.toArray().data],
    NAME_OF_ROW.map((n) => SORTED.indexOf(n)),
  );
  assert.deepEqual(
    [...train.features.toArray().data],
    ROWS.map(([x]) => x),
  );
});

test('evalFraction: the held-out rows are encoded with the same (whole-file) mapping', async () => {
  const {
    train,
    eval: held,
    classes,
  } = await loadSplits(config({ train: { type: 'csv', path: './train.csv', label: 'label', labelType: 'class' }, evalFraction: 0.34 }));
  assert.deepEqual(classes?.classes, SORTED);
  // Each row's feature is its row number: its label must be its own name's sorted index.
  for (const part of [train, held!]) {
    for (let i = 0; i < part.count; i++) {
      const row = part.features.toArray().data[i]! - 1;
      assert.equal(part.labels.toArray().data[i], SORTED.indexOf(NAME_OF_ROW[row]!), `row ${row + 1}`);
    }
  }
  assert.equal(train.count + held!.count, ROWS.length);
});
