// A misspelt class name in a CSV ("Setosa" once among "setosa" rows) makes a class the model has
// no output for: the error says the file has 4 classes, names each with its first line, and
// says the model has 3 outputs, instead of blaming a correct row's class index.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir, writeModelModule } from '../helpers/train-fixture.ts';

test('a class name typo: 4 classes with their first lines, and a model of 3 outputs', () => {
  const dir = tempDir('class-typo');
  const model = writeModelModule(dir, 'mlp'); // [6] -> 3 classes
  const names = ['setosa', 'versicolor', 'virginica'];
  const rows = Array.from({ length: 30 }, (_, i) => {
    const name = i === 25 ? 'Setosa' : names[i % 3]!; // data row 25 is on line 27
    return [...Array.from({ length: 6 }, (_, f) => ((i * 7 + f) % 5) / 5), name].join(',');
  });
  const csv = path.join(dir, 'iris.csv');
  fs.writeFileSync(csv, ['f0,f1,f2,f3,f4,f5,species', ...rows].join('\n') + '\n');
  const cfg = path.join(dir, 'exp.json');
  fs.writeFileSync(
    cfg,
    JSON.stringify({
      model: { module: model },
      loss: 'sparseCategoricalCrossentropy',
      data: { train: { type: 'csv', path: csv, label: 'species', labelType: 'class' } },
      training: { batchSize: 8, steps: 2 },
      optimizer: { name: 'sgd' },
    }),
  );
  const r = runCli(['train', cfg, '--simulate', '1', '--backend', 'cpu', '--run-dir', path.join(dir, 'run')]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(
    r.stderr.split('\n').find((l) => l.startsWith('error ')),
    `error E_DATA: data.train: ${csv} has 4 classes but the model has 3 outputs (one per class): ` +
      '"Setosa" (first on line 27), "setosa" (first on line 2), "versicolor" (first on line 3), "virginica" (first on line 4)',
  );
  assert.match(r.stderr, /hint: a misspelt class name is a class of its own/);
  assert.doesNotMatch(r.stderr, /class ind|sample \d/);
  assert.ok(!fs.existsSync(path.join(dir, 'run', 'metrics.jsonl')), 'training started');
});
