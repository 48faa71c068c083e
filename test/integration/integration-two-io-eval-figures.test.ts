// A model with two outputs ('class': a softmax over 3 classes, sparseCategoricalCrossentropy;
// 'box': 2 linear values, meanSquaredError) reports each output's figures: 37 eval rows in eval
// batches of 7 (7+7+7+7+7+2), each split unevenly over 2 workers (4+3, then 1+1), give each
// output's loss, accuracy, top-k, mae, and the config's metrics per output it suits (precision /
// recall / F1 macro and micro, one-vs-rest AUC, RMSE, a custom module), equal to a single-process
// computation from plain tfjs predictions of the same weights over all 37 rows at once. The
// reference is written from the definitions, from plain arrays: it calls none of the code under
// test. Box has no classes: no accuracy, top-k, counts or AUC of it anywhere.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { referenceOutputPredictions } from '../helpers/reference-predictions.ts';
import { buildConfig, buildReferenceModel, loadTf, setFlatWeights, silent, tempDir } from '../helpers/train-fixture.ts';
import { twoIoEvalLosses, writeTwoIoData, writeTwoIoModel } from '../helpers/two-io-model.ts';

const dir = tempDir('two-io-eval-figures');
const K = 2; // eval.topK, below the 3 classes
const N = 37;

const METRICS = [
  'accuracy',
  'topK',
  { name: 'precision', average: 'macro' },
  { name: 'precision', average: 'micro' },
  { name: 'recall', average: 'macro' },
  { name: 'f1', average: 'macro' },
  { name: 'f1', average: 'micro' },
  'auc',
  'mae',
  'rmse',
  { module: './sums.mjs' },
];

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The class output's figures from its predictions p (rows of `classes` probabilities) and the true classes. */
function classReference(p: Float32Array, truth: number[], classes: number) {
  const row = (i: number) => Array.from(p.subarray(i * classes, (i + 1) * classes));
  const guess = truth.map((_, i) => row(i).indexOf(Math.max(...row(i))));
  const present = [...new Set([...truth, ...guess])];
  const perClass = present.map((c) => ({
    tp: truth.filter((y, i) => y === c && guess[i] === c).length,
    fp: truth.filter((y, i) => y !== c && guess[i] === c).length,
    fn: truth.filter((y, i) => y === c && guess[i] !== c).length,
  }));
  const prec = (c: { tp: number; fp: number }) => (c.tp + c.fp ? c.tp / (c.tp + c.fp) : 0);
  const rec = (c: { tp: number; fn: number }) => (c.tp + c.fn ? c.tp / (c.tp + c.fn) : 0);
  const f1 = (c: { tp: number; fp: number; fn: number }) => (prec(c) + rec(c) ? (2 * prec(c) * rec(c)) / (prec(c) + rec(c)) : 0);
  const sum = perClass.reduce((a, c) => ({ tp: a.tp + c.tp, fp: a.fp + c.fp, fn: a.fn + c.fn }), { tp: 0, fp: 0, fn: 0 });
  const aucs: number[] = [];
  for (let c = 0; c < classes; c++) {
    let wins = 0;
    let pairs = 0;
    for (let i = 0; i < N; i++) {
      if (truth[i] !== c) continue;
      for (let j = 0; j < N; j++) {
        if (truth[j] === c) continue;
        pairs++;
        const [a, b] = [p[i * classes + c]!, p[j * classes + c]!];
        wins += a > b ? 1 : a === b ? 0.5 : 0;
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
    accuracy: truth.filter((y, i) => guess[i] === y).length / N,
    top_k: truth.filter((y, i) => row(i).filter((v) => v > row(i)[y]!).length < K).length / N,
    precision_macro: mean(perClass.map(prec)),
    precision_micro: prec(sum),
    recall_macro: mean(perClass.map(rec)),
    f1_macro: mean(perClass.map(f1)),
    f1_micro: f1(sum),
    auc: mean(aucs),
    mae: abs / (N * classes),
    rmse: Math.sqrt(sq / (N * classes)),
    predSum: p.reduce((a, b) => a + b, 0),
  };
}

/** The box output's figures: errors over every value of every row. */
function boxReference(p: Float32Array, y: ArrayLike<number>) {
  let abs = 0;
  let sq = 0;
  p.forEach((v, i) => {
    abs += Math.abs(y[i]! - v);
    sq += (y[i]! - v) ** 2;
  });
  return { mae: abs / p.length, rmse: Math.sqrt(sq / p.length), predSum: p.reduce((a, b) => a + b, 0) };
}

// Counts are exact; float sums differ from the reference's order of additions only.
const EXACT = /^(accuracy|top_k|precision_|recall_|f1_|auc)/;
const close = (key: string, g: unknown, w: number) => {
  assert.ok(typeof g === 'number', `${key} is a number (got ${String(g)})`);
  if (EXACT.test(key)) assert.ok(Math.abs(g - w) <= 1e-12, `${key}: ${g} vs single-process ${w}`);
  else assert.ok(Math.abs(g - w) <= 1e-6 + 1e-5 * Math.abs(w), `${key}: ${g} vs single-process ${w}`);
};

test('two outputs, 2 workers, uneven shards, eval batch 7: every per-output figure equals a single-process computation', async (t) => {
  fs.writeFileSync(
    path.join(dir, 'sums.mjs'),
    'export default (yTrue, yPred, tf) => ({ pred: tf.sum(yPred), rows: yTrue.shape[0] });\n' +
      'export function finalize(s, { samples }) { return { mean: s.pred / samples, rows: s.rows }; }\n',
  );
  const evalFiles = writeTwoIoData(dir, 'eval', N, 2);
  const raw = {
    name: 'two-io-eval-figures',
    model: { module: writeTwoIoModel(dir) },
    loss: { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError' },
    lossWeights: { class: 1, box: 0.5 },
    data: { train: { type: 'npy', ...writeTwoIoData(dir, 'train', 30, 1) }, eval: { type: 'npy', ...evalFiles } },
    training: { batchSize: 7, epochs: 1, seed: 3 },
    eval: { batchSize: 7, topK: K },
    optimizer: { name: 'sgd', learningRate: 0.3 },
    metrics: METRICS,
  };
  const cfg = buildConfig(dir, raw, 2);
  const lines: string[] = [];
  const r = await train(cfg, { ...silent, line: (s: string) => lines.push(s) });
  const ev = r.eval!;

  const ref = await referenceOutputPredictions(cfg, r.weights);
  const cls = ref.class!;
  const box = ref.box!;
  const c = classReference(cls.scores, Array.from(cls.labels), cls.width);
  const b = boxReference(box.scores, box.labels);
  const tf = await loadTf();
  const model = await buildReferenceModel(tf, cfg);
  setFlatWeights(tf, model, r.weights);
  const losses = await twoIoEvalLosses(model, evalFiles);
  model.dispose();

  // The figures of each output, in the API.
  assert.equal(ev.samples, N);
  assert.deepEqual(Object.keys(ev.outputs!), ['class', 'box'], "the model's output order");
  const o = ev.outputs!;
  close('loss.class', o.class!.loss, losses.class);
  close('loss.box', o.box!.loss, losses.box);
  close('loss', ev.loss, losses.class + 0.5 * losses.box);
  close('accuracy.class', o.class!.accuracy, c.accuracy);
  close('top_k.class', o.class!.topK, c.top_k);
  close('mae.class', o.class!.mae, c.mae);
  close('mae.box', o.box!.mae, b.mae);
  assert.equal(o.box!.accuracy, null, 'box has no classes');
  assert.equal(o.box!.topK, null);
  assert.deepEqual(ev.outputLosses, { class: o.class!.loss, box: o.box!.loss }, 'outputLosses kept');
  // Keras has no single accuracy for a model of several outputs.
  assert.equal(ev.accuracy, null);
  assert.equal(ev.topK, null);
  assert.ok(Number.isNaN(ev.mae));

  // The config's metrics, per output they suit, in the config's order then the model's.
  const want: Record<string, number> = {
    'accuracy.class': c.accuracy,
    'top_k.class': c.top_k,
    'precision_macro.class': c.precision_macro,
    'precision_micro.class': c.precision_micro,
    'recall_macro.class': c.recall_macro,
    'f1_macro.class': c.f1_macro,
    'f1_micro.class': c.f1_micro,
    'auc.class': c.auc,
    'mae.class': c.mae,
    'mae.box': b.mae,
    'rmse.class': c.rmse,
    'rmse.box': b.rmse,
    'sums.mean.class': c.predSum / N,
    'sums.rows.class': N,
    'sums.mean.box': b.predSum / N,
    'sums.rows.box': N,
  };
  const got = ev.metrics!;
  assert.deepEqual(Object.keys(got), Object.keys(want), 'the metrics, in the config order, per output');
  for (const [key, w] of Object.entries(want)) {
    t.diagnostic(`${key}: ${got[key]} vs single-process ${w}`);
    close(key, got[key], w);
  }
  assert.notEqual(got['precision_macro.class'], got['precision_micro.class'], 'macro and micro differ on this data');

  // metrics.jsonl's eval line: each output's figures beside loss.<output>; none box does not have.
  const line = fs
    .readFileSync(path.join(cfg.runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((l) => l.type === 'eval')
    .at(-1);
  assert.equal(line['loss.class'], o.class!.loss);
  assert.equal(line['accuracy.class'], o.class!.accuracy);
  assert.equal(line['top_k.class'], o.class!.topK);
  assert.equal(line['mae.class'], o.class!.mae);
  assert.equal(line['loss.box'], o.box!.loss);
  assert.equal(line['mae.box'], o.box!.mae);
  assert.ok(!('accuracy.box' in line) && !('top_k.box' in line), 'box has no accuracy or top-k on the line');
  assert.equal(line.accuracy, null);
  assert.equal(line.top_k, null);
  assert.equal(line.mae, null);
  assert.deepEqual(line.metrics, got);
  // The printed eval line names them too.
  const printed = lines.filter((l) => l.startsWith('eval @')).at(-1)!;
  t.diagnostic(printed);
  for (const key of [
    'loss.class',
    'accuracy.class',
    `top-${K}.class`,
    'mae.class',
    'loss.box',
    'mae.box',
    'f1_macro.class',
    'auc.class',
    'rmse.box',
    'sums.mean.box',
  ]) {
    assert.match(printed, new RegExp(`(^| )${key.replace(/\./g, '\\.')} `), `${key} printed`);
  }
});
