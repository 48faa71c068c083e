// Two outputs with classes both have their AUC scores in the workers' output regions, one
// output after the other: the two-output model with 'class' (softmax, sparseCategoricalCrossentropy)
// and 'box' as two yes/no outputs (binaryCrossentropy on 0/1 labels: whether each box value is > 0), 37 eval rows
// in eval batches of 7 over 2 workers (4+3, then 1+1), gives each output's accuracy, macro F1,
// AUC and RMSE equal to a single-process computation from plain tfjs predictions of the same
// weights, written here from the definitions (one-vs-rest for the softmax, per output for the
// binary one).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { readNpy, writeNpy } from '../../src/shared/npy.ts';
import { referenceOutputPredictions } from '../helpers/reference-predictions.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { writeTwoIoData, writeTwoIoModel, type TwoIoFiles } from '../helpers/two-io-model.ts';

/** The two-io data with the box labels as 0/1: whether each value is > 0. */
function withYesNoBox(files: TwoIoFiles): { type: 'npy' } & TwoIoFiles {
  const a = readNpy(files.labels.box);
  const file = files.labels.box.replace(/\.npy$/, '-01.npy');
  writeNpy(file, { dtype: 'float32', shape: a.shape, data: Float32Array.from(a.data, (v) => (v > 0 ? 1 : 0)) });
  return { type: 'npy', features: files.features, labels: { ...files.labels, box: file } };
}

const N = 37;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * From per-row, per-column truth, guess (0/1) and scores: macro F1 over the columns present, and
 * the mean over columns with positives and negatives of the pairwise AUC (ties one half).
 */
function columns(truth: boolean[][], guess: boolean[][], score: number[][]): { f1_macro: number; auc: number } {
  const width = truth[0]!.length;
  const f1s: number[] = [];
  const aucs: number[] = [];
  for (let c = 0; c < width; c++) {
    let [tp, fp, fn] = [0, 0, 0];
    truth.forEach((row, i) => {
      if (row[c] && guess[i]![c]) tp++;
      else if (!row[c] && guess[i]![c]) fp++;
      else if (row[c] && !guess[i]![c]) fn++;
    });
    if (tp + fp + fn > 0) f1s.push(tp ? (2 * tp) / (2 * tp + fp + fn) : 0);
    const pos = truth.flatMap((row, i) => (row[c] ? [score[i]![c]!] : []));
    const neg = truth.flatMap((row, i) => (row[c] ? [] : [score[i]![c]!]));
    if (!pos.length || !neg.length) continue;
    let wins = 0;
    for (const p of pos) for (const n of neg) wins += p > n ? 1 : p === n ? 0.5 : 0;
    aucs.push(wins / (pos.length * neg.length));
  }
  return { f1_macro: mean(f1s), auc: mean(aucs) };
}

const rows = (a: ArrayLike<number>, width: number) => Array.from({ length: N }, (_, i) => Array.from(a).slice(i * width, (i + 1) * width));
const rmse = (p: number[][], y: number[][]) => Math.sqrt(mean(p.flatMap((row, i) => row.map((v, c) => (y[i]![c]! - v) ** 2))));

test('two outputs with classes: each output AUC, F1, accuracy and RMSE equal a single-process computation', async (t) => {
  const dir = tempDir('two-io-two-scored');
  const cfg = buildConfig(
    dir,
    {
      name: 'two-io-two-scored',
      model: { module: writeTwoIoModel(dir) },
      loss: { class: 'sparseCategoricalCrossentropy', box: 'binaryCrossentropy' },
      data: { train: withYesNoBox(writeTwoIoData(dir, 'train', 30, 1)), eval: withYesNoBox(writeTwoIoData(dir, 'eval', N, 2)) },
      training: { batchSize: 7, epochs: 1, seed: 3 },
      eval: { batchSize: 7 },
      optimizer: { name: 'sgd', learningRate: 0.1 },
      metrics: ['accuracy', 'f1', 'auc', 'rmse'],
    },
    2,
  );
  const r = await train(cfg, silent);
  const ref = await referenceOutputPredictions(cfg, r.weights);

  const cp = rows(ref.class!.scores, 3);
  const cy = Array.from(ref.class!.labels);
  const argmax = (row: number[]) => row.indexOf(Math.max(...row));
  const oneHot = cy.map((y) => [0, 1, 2].map((c) => (c === y ? 1 : 0)));
  const cls = {
    accuracy: mean(cy.map((y, i) => (argmax(cp[i]!) === y ? 1 : 0))),
    ...columns(
      oneHot.map((row) => row.map((v) => v === 1)),
      cp.map((row) => [0, 1, 2].map((c) => argmax(row) === c)),
      cp,
    ),
    rmse: rmse(cp, oneHot),
  };
  const bp = rows(ref.box!.scores, 2);
  const by = rows(ref.box!.labels, 2);
  const truth = by.map((row) => row.map((v) => v > 0.5));
  const guess = bp.map((row) => row.map((v) => v > 0.5));
  const box = {
    accuracy: mean(truth.map((row, i) => mean(row.map((v, c) => (v === guess[i]![c] ? 1 : 0))))),
    ...columns(truth, guess, bp),
    rmse: rmse(bp, by),
  };

  const want: Record<string, number> = {
    'accuracy.class': cls.accuracy,
    'accuracy.box': box.accuracy,
    'f1_macro.class': cls.f1_macro,
    'f1_macro.box': box.f1_macro,
    'auc.class': cls.auc,
    'auc.box': box.auc,
    'rmse.class': cls.rmse,
    'rmse.box': box.rmse,
  };
  const got = r.eval!.metrics!;
  assert.deepEqual(Object.keys(got), Object.keys(want), 'each metric for both outputs');
  for (const [key, w] of Object.entries(want)) {
    const g = got[key];
    t.diagnostic(`${key}: ${g} vs single-process ${w}`);
    assert.ok(typeof g === 'number', `${key} is a number`);
    const tol = key.startsWith('rmse') ? 1e-6 + 1e-5 * w : 1e-12;
    assert.ok(Math.abs(g - w) <= tol, `${key}: ${g} vs single-process ${w}`);
  }
  assert.notEqual(got['auc.class'], got['auc.box']);
  assert.equal(r.eval!.outputs!.box!.accuracy, got['accuracy.box'], "the box output's shipped accuracy");
  assert.equal(r.eval!.outputs!.box!.topK, null, 'binaryCrossentropy has no top-k');
});
