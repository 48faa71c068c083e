// `eval` on a CSV with class names encodes them with the model's labels.json (its outputs are in
// that order), not with the names the config's data happens to hold: an eval file with 2 of the
// 3 classes evaluates as the same rows with the model's indices do. data.classes, when set,
// must equal the model's list: a mismatch is E_CONFIG naming both.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { runEval } from '../../src/coordinator/inference.ts';
import { train } from '../../src/coordinator/train.ts';
import { NAMES, writeClassCsv } from '../helpers/class-csv.ts';
import { buildConfig, silent, tempDir, writeModelModule } from '../helpers/train-fixture.ts';

test("eval encodes names with the model's labels.json; a different data.classes is refused naming both", async () => {
  const dir = tempDir('eval-classes');
  const sorted = [...NAMES].sort();
  const model = writeModelModule(dir, 'mlp');
  const base = {
    model: { module: model },
    loss: 'sparseCategoricalCrossentropy',
    training: { batchSize: 8, epochs: 2 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  };
  const trainCsv = writeClassCsv(dir, 'train', 40, 11);
  const trained = buildConfig(dir, { ...base, name: 'model', data: { train: { type: 'csv', path: trainCsv.path, label: 'label', labelType: 'class' } } }, 2);
  await train(trained, silent);
  const src = { dir: path.join(trained.runDir, 'final'), ema: false };

  // Rows of "zebra" and "cat, wild" only: sorted on their own they would be indices 0 and 1.
  const two = (i: number, idx: Int32Array) => NAMES[idx[i]!] !== 'ant';
  const full = writeClassCsv(dir, 'rows-all', 30, 12);
  const names = writeClassCsv(dir, 'rows-names', 30, 12, { rows: (i) => two(i, full.index) });
  const indices = writeClassCsv(dir, 'rows-indices', 30, 12, { rows: (i) => two(i, full.index), label: (c) => String(sorted.indexOf(NAMES[c]!)) });
  assert.deepEqual(new Set(names.labels), new Set(['zebra', 'cat, wild']));
  const evalCfg = (csv: string, labelType: string, extra: Record<string, unknown> = {}) =>
    buildConfig(
      dir,
      {
        ...base,
        name: `eval-${labelType}`,
        data: { train: { type: 'csv', path: csv, label: 'label', labelType }, eval: { type: 'csv', path: csv, label: 'label', labelType }, ...extra },
      },
      2,
    );
  const byNames = await runEval(evalCfg(names.path, 'class'), silent, src);
  const byIndices = await runEval(evalCfg(indices.path, 'index'), silent, src);
  assert.equal(byNames.samples, names.labels.length);
  assert.equal(byNames.loss, byIndices.loss);
  assert.equal(byNames.accuracy, byIndices.accuracy);

  // The same classes in the model's order are fine; another order is refused naming both.
  const same = await runEval(evalCfg(names.path, 'class', { classes: sorted }), silent, src);
  assert.equal(same.loss, byIndices.loss);
  await assert.rejects(
    runEval(evalCfg(names.path, 'class', { classes: ['zebra', 'cat, wild', 'ant'] }), silent, src),
    (e: Error & { code?: string; hint?: string }) => {
      assert.equal(e.code, 'E_CONFIG');
      assert.equal(
        e.message,
        `data.classes: lists "zebra", "cat, wild", "ant", but the model's ${path.join(src.dir, 'labels.json')} lists "ant", "cat, wild", "zebra" (the order of its outputs)`,
      );
      assert.match(e.hint ?? '', /remove data\.classes to use the model's labels\.json/);
      return true;
    },
  );
});
