// The config's classification metrics are exact over the whole eval set: 37 eval rows in eval
// batches of 8 (8+8+8+8+5), each split unevenly over 3 workers (3+3+2, 2+2+1), give the
// accuracy, top-k, precision / recall / F1 (macro and micro), one-vs-rest AUC, MAE and RMSE that
// a single process computes from the same model's predictions over all 37 rows at once. The
// reference below is written from the definitions, from plain arrays: it calls none of the code
// under test.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Tensor } from '@tensorflow/tfjs';
import { train } from '../../src/coordinator/train.ts';
import { readNpy } from '../../src/shared/npy.ts';
import { buildConfig, buildReferenceModel, loadTf, setFlatWeights, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('metrics-classes');
const K = 2; // eval.topK, below the 3 classes

const METRICS = [
  'accuracy',
  'topK',
  { name: 'precision', average: 'macro' },
  { name: 'precision', average: 'micro' },
  { name: 'recall', average: 'macro' },
  { name: 'recall', average: 'micro' },
  { name: 'f1', average: 'macro' },
  { name: 'f1', average: 'micro' },
  'auc',
  'mae',
  'rmse',
];

/** Everything from the predictions `p` (rows of `classes` probabilities) and the true classes. */
function reference(p: Float32Array, truth: number[], classes: number) {
  const n = truth.length;
  const row = (i: number) => Array.from(p.subarray(i * classes, (i + 1) * classes));
  const argmax = (xs: number[]) => xs.indexOf(Math.max(...xs));
  const guess = truth.map((_, i) => argmax(row(i)));
  const accuracy = truth.filter((y, i) => guess[i] === y).length / n;
  const topK = truth.filter((y, i) => row(i).filter((v) => v > row(i)[y]!).length < K).length / n;
  // precision / recall / F1: scikit-learn's definitions over the classes present, zero_division 0
  const present = [...new Set([...truth, ...guess])];
  const perClass = present.map((c) => {
    const tp = truth.filter((y, i) => y === c && guess[i] === c).length;
    const fp = truth.filter((y, i) => y !== c && guess[i] === c).length;
    const fn = truth.filter((y, i) => y === c && guess[i] !== c).length;
    return { tp, fp, fn };
  });
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const prec = (c: { tp: number; fp: number }) => (c.tp + c.fp ? c.tp / (c.tp + c.fp) : 0);
  const rec = (c: { tp: number; fn: number }) => (c.tp + c.fn ? c.tp / (c.tp + c.fn) : 0);
  const f1 = (c: { tp: number; fp: number; fn: number }) => (prec(c) + rec(c) ? (2 * prec(c) * rec(c)) / (prec(c) + rec(c)) : 0);
  const sum = perClass.reduce((a, c) => ({ tp: a.tp + c.tp, fp: a.fp + c.fp, fn: a.fn + c.fn }), { tp: 0, fp: 0, fn: 0 });
  // AUC one-vs-rest: for each class, every (row of it, row not of it) pair; a tie counts one half.
  const aucs: number[] = [];
  for (let c = 0; c < classes; c++) {
    let wins = 0;
    let pairs = 0;
    for (let i = 0; i < n; i++) {
      if (truth[i] !== c) continue;
      for (let j = 0; j < n; j++) {
        if (truth[j] === c) continue;
        pairs++;
        wins += p[i * classes + c]! > p[j * classes + c]! ? 1 : p[i * classes + c] === p[j * classes + c] ? 0.5 : 0;
      }
    }
    if (pairs) aucs.push(wins / pairs);
  }
  let abs = 0;
  let sq = 0;
  truth.forEach((y, i) =>
    row(i).forEach((v, c) => {
      const d = (c === y ? 1 : 0) - v;
      abs += Math.abs(d);
      sq += d * d;
    }),
  );
  return {
    accuracy,
    top_k: topK,
    precision_macro: mean(perClass.map(prec)),
    precision_micro: prec(sum),
    recall_macro: mean(perClass.map(rec)),
    recall_micro: rec(sum),
    f1_macro: mean(perClass.map(f1)),
    f1_micro: f1(sum),
    auc: mean(aucs),
    mae: abs / (n * classes),
    rmse: Math.sqrt(sq / (n * classes)),
  };
}

// Counts are exact; float sums (mae, rmse) differ from the reference's order of additions only.
const EXACT = new Set(['accuracy', 'top_k', 'precision_macro', 'precision_micro', 'recall_macro', 'recall_micro', 'f1_macro', 'f1_micro', 'auc']);

for (const [loss, labels] of [
  ['categoricalCrossentropy', 'onehot'],
  ['sparseCategoricalCrossentropy', 'index'],
] as const) {
  test(`${loss}: 37 eval rows, eval batch 8, 3 workers: every metric equals a single-process computation`, async (t) => {
    const raw = {
      name: `metrics-${labels}`,
      model: { module: writeModelModule(dir, 'mlp') },
      loss,
      data: { train: writeDataset(dir, `train-${labels}`, 30, labels, 211), eval: writeDataset(dir, `eval-${labels}`, 37, labels, 212) },
      training: { batchSize: 10, epochs: 1, seed: 5 },
      optimizer: { name: 'sgd', learningRate: 0.3 },
      eval: { batchSize: 8, topK: K },
      metrics: METRICS,
    };
    const cfg = buildConfig(dir, raw, 3);
    const r = await train(cfg, silent);
    assert.ok(r.eval?.metrics, 'the run computed its metrics');

    const tf = await loadTf();
    const model = await buildReferenceModel(tf, cfg);
    setFlatWeights(tf, model, r.weights);
    const x = readNpy(cfg.data.eval!.type === 'npy' ? (cfg.data.eval!.features as string) : '');
    const yFile = readNpy(cfg.data.eval!.type === 'npy' ? (cfg.data.eval!.labels as string) : '');
    const pred = model.predict(tf.tensor(x.data, x.shape)) as Tensor;
    const p = pred.dataSync() as Float32Array;
    const classes = pred.shape[1]!;
    const truth =
      labels === 'index'
        ? Array.from(yFile.data)
        : Array.from({ length: 37 }, (_, i) => {
            const row = Array.from(yFile.data.subarray(i * classes, (i + 1) * classes));
            return row.indexOf(Math.max(...row));
          });
    const want = reference(p, truth, classes);

    const got = r.eval.metrics;
    assert.deepEqual(Object.keys(got), Object.keys(want), 'the metrics, in the config order');
    for (const [key, w] of Object.entries(want)) {
      const g = got[key];
      t.diagnostic(`${key}: ${g} vs single-process ${w}`);
      assert.ok(typeof g === 'number', `${key} is a number`);
      if (EXACT.has(key)) assert.ok(Math.abs(g - w) <= 1e-12, `${key}: ${g} vs single-process ${w}`);
      else assert.ok(Math.abs(g - w) <= 1e-6 + 1e-5 * Math.abs(w), `${key}: ${g} vs single-process ${w}`);
    }
    // macro and micro are told apart (on this data they differ), and the shipped figures agree.
    assert.notEqual(got.precision_macro, got.precision_micro);
    assert.equal(got.accuracy, r.eval.accuracy);
    assert.equal(got.top_k, r.eval.topK);
    assert.equal(got.mae, r.eval.mae);

    // metrics.jsonl's eval line holds them too, beside the shipped fields.
    const line = fs
      .readFileSync(path.join(cfg.runDir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((l) => l.type === 'eval');
    assert.deepEqual(line.metrics, got);
    assert.equal(line.samples, 37);
    tf.dispose([pred]);
    model.dispose();
  });
}
