// predict with a model trained on class names: `--output x.csv` writes, per input row in input
// order, the name of its highest output and that output (class,score); the names are those of
// the argmax of the .npy scores of the same model mapped through the sorted class list, both
// computed here. The API's predict returns the same names. A model without labels.json is
// refused a .csv output (E_USAGE, with a hint) before any worker starts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { predict } from '../../src/api.ts';
import { writeNpy, readNpy } from '../../src/shared/npy.ts';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { NAMES, writeClassCsv } from '../helpers/class-csv.ts';
import { writeNotedModel } from '../helpers/noted-model.ts';
import { FEATURES, tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('predict-names');
const trainCsv = writeClassCsv(dir, 'train', 40, 7);
const noted = writeNotedModel(dir); // a softmax over the 3 classes, noting each build
const runDir = path.join(dir, 'run');
const file = writeConfigFile(dir, 'names', {
  model: { module: noted.module },
  loss: 'sparseCategoricalCrossentropy',
  data: { train: { type: 'csv', path: trainCsv.path, label: 'label', labelType: 'class' } },
  training: { batchSize: 8, epochs: 3 },
  optimizer: { name: 'sgd', learningRate: 0.5 },
  devices: { simulate: 2, backend: 'cpu' },
  runDir,
});
// 13 rows: uneven over 2 workers; one row of zeros.
const input = path.join(dir, 'rows.npy');
const rows = writeClassCsv(dir, 'rows', 13, 8).x;
rows.fill(0, 0, FEATURES);
writeNpy(input, { dtype: 'float32', shape: [13, FEATURES], data: rows });

/** RFC 4180 lines of predictions.csv, split into fields (names may hold a quoted comma). */
function readCsv(text: string): string[][] {
  return text
    .trimEnd()
    .split('\n')
    .map((line) =>
      (line.match(/("([^"]|"")*"|[^,]*)(,|$)/g) ?? [])
        .filter((f) => f !== '')
        .map((f) => {
          const v = f.endsWith(',') ? f.slice(0, -1) : f;
          return v.startsWith('"') ? v.slice(1, -1).replace(/""/g, '"') : v;
        }),
    );
}

test('predict --output x.csv names each row by the argmax of its scores', async () => {
  const trained = await runCliAsync(['train', file]);
  assert.equal(trained.code, 0, trained.stderr);
  const model = path.join(runDir, 'final');
  const scoresFile = path.join(dir, 'scores.npy');
  const namesFile = path.join(dir, 'names.csv');
  const a = await runCliAsync(['predict', file, '--checkpoint', model, '--input', input, '--output', scoresFile]);
  assert.equal(a.code, 0, a.stderr);
  const b = await runCliAsync(['predict', file, '--checkpoint', model, '--input', input, '--output', namesFile]);
  assert.equal(b.code, 0, b.stderr);
  assert.match(b.stdout, /predicted 13 rows with 2 workers → .*names\.csv \(class,score; 3 classes from .*labels\.json\)/);

  const scores = readNpy(scoresFile);
  assert.deepEqual(scores.shape, [13, 3]);
  const sorted = [...NAMES].sort();
  const s = scores.data as Float32Array;
  const want = Array.from({ length: 13 }, (_, r) => {
    const row = Array.from(s.subarray(r * 3, r * 3 + 3));
    const best = row.indexOf(Math.max(...row));
    return { name: sorted[best]!, score: row[best]! };
  });
  const lines = readCsv(fs.readFileSync(namesFile, 'utf8'));
  assert.deepEqual(lines[0], ['class', 'score']);
  assert.equal(lines.length, 14);
  lines.slice(1).forEach(([name, score], r) => {
    assert.equal(name, want[r]!.name, `row ${r}`);
    assert.equal(Math.fround(Number(score)), want[r]!.score, `row ${r}: the score reads back as the float32 output`);
  });
  // More than one class is predicted: the names are not all one constant.
  assert.ok(new Set(want.map((w) => w.name)).size > 1, 'every row got the same class');

  const api = await predict(file, { checkpoint: model, input, print: false });
  assert.deepEqual(api.classes, sorted);
  assert.deepEqual(
    api.predicted,
    want.map((w) => w.name),
  );
});

test('a model without labels.json: a .csv output is E_USAGE with a hint, before any worker starts', async () => {
  const plain = path.join(dir, 'plain');
  fs.cpSync(path.join(runDir, 'final'), plain, { recursive: true });
  fs.rmSync(path.join(plain, 'labels.json'));
  noted.reset();
  const r = await runCliAsync(['predict', file, '--checkpoint', plain, '--input', input, '--output', path.join(dir, 'x.csv')]);
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(r.stderr, new RegExp(`^error E_USAGE: --output ${dir}/x\\.csv: a \\.csv output gets class names, but ${plain} has no labels\\.json`, 'm'));
  assert.match(r.stderr, /hint: write the scores with --output predictions\.npy instead/);
  assert.doesNotMatch(r.stderr, /^\s+at /m);
  assert.ok(!noted.built(), 'workers started before the missing labels.json was found');
  const api = await predict(file, { checkpoint: plain, input, print: false });
  assert.equal(api.classes, null);
  assert.equal(api.predicted, null);
});
