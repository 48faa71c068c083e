// data.classes fixes the mapping: its order wins over sorting, it may list a class no split has
// (e.g. a rare class missing from a small training set), and a name outside it is an error
// naming the file, line and class, with a hint.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadSplits } from '../../src/data/splits.ts';
import { validateConfig } from '../../src/config/validate.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-class-explicit-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.mjs'), '');
fs.writeFileSync(path.join(dir, 'train.csv'), 'x,label\n1,dog\n2,cat\n3,dog\n');
fs.writeFileSync(path.join(dir, 'eval.csv'), 'x,label\n1,bird\n2,cat\n');
fs.writeFileSync(path.join(dir, 'odd.csv'), 'x,label\n1,dog\n2,cat\n3,cow\n');

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
const csv = (file: string) => ({ type: 'csv', path: `./${file}`, label: 'label', labelType: 'class' });

test('data.classes: its order, not the sorted one; a class absent from train keeps its index', async () => {
  const { train, eval: ev, classes } = await loadSplits(config({ train: csv('train.csv'), eval: csv('eval.csv'), classes: ['dog', 'bird', 'cat'] }));
  assert.deepEqual(classes?.classes, ['dog', 'bird', 'cat']);
  assert.deepEqual([...train.labels.toArray().data], [0, 2, 0]);
  assert.deepEqual([...ev!.labels.toArray().data], [1, 2]);
});

test('a train row whose class data.classes does not list: E_DATA naming file, line and class', async () => {
  await assert.rejects(loadSplits(config({ train: csv('odd.csv'), classes: ['dog', 'cat'] })), (e: Error & { code?: string; hint?: string }) => {
    assert.equal(e.code, 'E_DATA');
    assert.equal(
      e.message,
      `data.train: ${path.join(dir, 'odd.csv')} line 4, column "label": class "cow" is not one of the 2 classes of data.classes ("dog", "cat")`,
    );
    assert.match(e.hint ?? '', /add it to data\.classes/);
    return true;
  });
});
