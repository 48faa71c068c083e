// Eval names are encoded with the mapping of data.train, never with their own: an eval split
// with fewer classes keeps the training indices, and an eval class that data.train never had is
// an error naming the file, the line and the class, with a hint (list the classes in data.classes).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadSplits } from '../../src/data/splits.ts';
import { validateConfig } from '../../src/config/validate.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-class-unseen-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.mjs'), '');
fs.writeFileSync(path.join(dir, 'train.csv'), 'x,label\n1,dog\n2,cat\n3,emu\n');
fs.writeFileSync(path.join(dir, 'eval.csv'), 'x,label\n1,emu\n2,emu\n');
fs.writeFileSync(path.join(dir, 'unseen.csv'), 'x,label\n1,cat\n\n2,"bird"\n');

const config = (evalFile: string) =>
  validateConfig(
    {
      model: { module: './model.mjs' },
      loss: 'sparseCategoricalCrossentropy',
      training: { batchSize: 2 },
      optimizer: { name: 'sgd' },
      data: {
        train: { type: 'csv', path: './train.csv', label: 'label', labelType: 'class' },
        eval: { type: 'csv', path: `./${evalFile}`, label: 'label', labelType: 'class' },
      },
    },
    { configPath: path.join(dir, 'exp.yaml'), cwd: dir },
  );

test('an eval split with one class keeps the training index of that class', async () => {
  const { eval: ev, classes } = await loadSplits(config('eval.csv'));
  assert.deepEqual(classes?.classes, ['cat', 'dog', 'emu']);
  assert.deepEqual([...ev!.labels.toArray().data], [2, 2]); // emu is class 2 of train, not class 0 of eval
});

test('an eval class that data.train never had: E_DATA naming file, line and class, with a hint', async () => {
  await assert.rejects(loadSplits(config('unseen.csv')), (e: Error & { code?: string; hint?: string; exitCode?: number }) => {
    assert.equal(e.code, 'E_DATA');
    assert.equal(e.exitCode, 2);
    assert.equal(
      e.message,
      `data.eval: ${path.join(dir, 'unseen.csv')} line 4, column "label": class "bird" is not one of the 3 classes of data.train ("cat", "dog", "emu")`,
    );
    assert.match(e.hint ?? '', /data\.classes/);
    return true;
  });
});
