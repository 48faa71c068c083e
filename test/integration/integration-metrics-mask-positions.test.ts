// Precision, recall, F1, AUC and accuracy on an image output count its pixels, as Keras's metrics
// do on a segmentation output: a [n, 4, 4, 1] sigmoid mask is one yes/no problem over every pixel
// (not 16 problems, one per pixel position, averaged), and a [n, 4, 4, 3] per-pixel softmax has 3
// classes counted over the pixels. 11 eval rows, eval batch 5, 2 workers; the reference counts by
// hand over the predictions of the same weights in this process.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import type { NdArray } from '../../src/shared/npy.ts';
import { writeFeatures, writeLabels, writeLayersModule } from '../helpers/positional-output.ts';
import { referencePredictions } from '../helpers/reference-predictions.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('metrics-mask');

const net = (units: number, activation: string) => `
  tf.layers.conv2d({ inputShape: [4, 4, 1], filters: 2, kernelSize: 3, padding: 'same', activation: 'tanh' }),
  tf.layers.conv2d({ filters: ${units}, kernelSize: 1, activation: '${activation}' }),`;

/** AUC by its definition: over every (positive, negative) pair, 1 when the positive scores higher, 1/2 on a tie. */
function pairAuc(scores: number[], positive: boolean[]): number | null {
  let wins = 0;
  let pairs = 0;
  scores.forEach((sp, i) => {
    if (!positive[i]) return;
    scores.forEach((sn, j) => {
      if (positive[j]) return;
      pairs++;
      wins += sp > sn ? 1 : sp === sn ? 0.5 : 0;
    });
  });
  return pairs ? wins / pairs : null;
}

/** Precision, recall and F1 of one class from its pixels' truth and guesses. */
function prf(truth: boolean[], guess: boolean[]): { p: number; r: number; f: number } {
  const tp = guess.filter((g, i) => g && truth[i]).length;
  const fp = guess.filter((g, i) => g && !truth[i]).length;
  const fn = guess.filter((g, i) => !g && truth[i]).length;
  const p = tp + fp ? tp / (tp + fp) : 0;
  const r = tp + fn ? tp / (tp + fn) : 0;
  return { p, r, f: tp + fp + fn ? (2 * tp) / (2 * tp + fp + fn) : 0 };
}

async function run(name: string, loss: string, units: number, activation: string, labels: (x: NdArray) => NdArray, metrics: unknown[]) {
  const tr = writeFeatures(dir, `train-${name}`, 14, [4, 4, 1], 51);
  const ev = writeFeatures(dir, `eval-${name}`, 11, [4, 4, 1], 52);
  const raw = {
    name,
    model: { module: writeLayersModule(dir, name, net(units, activation)) },
    loss,
    data: {
      train: { type: 'npy', features: tr.file, labels: writeLabels(dir, `train-${name}`, labels(tr.x)) },
      eval: { type: 'npy', features: ev.file, labels: writeLabels(dir, `eval-${name}`, labels(ev.x)) },
    },
    training: { batchSize: 7, steps: 2, seed: 4 },
    optimizer: { name: 'sgd', learningRate: 0.3 },
    eval: { batchSize: 5 },
    metrics,
  };
  const cfg = buildConfig(dir, raw, 2);
  const r = await train(cfg, silent);
  return { got: r.eval!.metrics!, ref: await referencePredictions(cfg, r.weights) };
}

const check = (t: { diagnostic(s: string): void }, got: Record<string, number | null>, want: Record<string, number | null>) => {
  t.diagnostic(`run ${JSON.stringify(got)}\nreference ${JSON.stringify(want)}`);
  assert.deepEqual(Object.keys(got), Object.keys(want));
  for (const [key, w] of Object.entries(want)) assert.ok(Math.abs((got[key] as number) - (w as number)) <= 1e-9, `${key}: ${got[key]} vs pixel-level ${w}`);
};

test('a [n, 4, 4, 1] sigmoid mask: auc, accuracy, precision, recall and f1 over its pixels', async (t) => {
  const mask = (x: NdArray): NdArray => ({ dtype: 'float32', shape: x.shape, data: Float32Array.from(x.data, (v) => (v > 0.3 ? 1 : 0)) });
  const { got, ref } = await run('mask', 'binaryCrossentropy', 1, 'sigmoid', mask, [
    'auc',
    'accuracy',
    'precision',
    { name: 'recall', average: 'micro' },
    'f1',
  ]);
  const p = Array.from(ref.scores);
  assert.equal(p.length, 11 * 16);
  const truth = Array.from(ref.labels, (v) => v > 0.5);
  const guess = p.map((v) => v > 0.5);
  const c = prf(truth, guess);
  check(t, got, {
    auc: pairAuc(p, truth),
    accuracy: guess.filter((g, i) => g === truth[i]).length / p.length,
    precision_macro: c.p,
    recall_micro: c.r,
    f1_macro: c.f,
  });
});

test('a [n, 4, 4, 3] per-pixel softmax with sparse labels [n, 4, 4]: macro precision, recall, f1 and auc over its pixels', async (t) => {
  const classes = (x: NdArray): NdArray => ({
    dtype: 'int32',
    shape: x.shape.slice(0, 3),
    data: Int32Array.from(x.data, (v) => Math.min(2, Math.floor((v + 1) * 1.5))),
  });
  const { got, ref } = await run('pixels', 'sparseCategoricalCrossentropy', 3, 'softmax', classes, ['accuracy', 'precision', 'recall', 'f1', 'auc']);
  const pixels = 11 * 16;
  const score = (i: number, c: number) => ref.scores[i * 3 + c]!;
  const label = Array.from(ref.labels);
  const argmax = label.map((_, i) => [0, 1, 2].reduce((b, c) => (score(i, c) > score(i, b) ? c : b), 0));
  const per = [0, 1, 2].map((c) =>
    prf(
      label.map((l) => l === c),
      argmax.map((a) => a === c),
    ),
  );
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const aucs = [0, 1, 2].map((c) =>
    pairAuc(
      label.map((_, i) => score(i, c)),
      label.map((l) => l === c),
    ),
  );
  assert.equal(label.length, pixels);
  assert.ok(
    [0, 1, 2].every((c) => label.includes(c) && argmax.includes(c)),
    'every class occurs in the labels and the guesses (so macro means over all three)',
  );
  check(t, got, {
    accuracy: argmax.filter((a, i) => a === label[i]).length / pixels,
    precision_macro: mean(per.map((x) => x.p)),
    recall_macro: mean(per.map((x) => x.r)),
    f1_macro: mean(per.map((x) => x.f)),
    auc: mean(aucs.map((a) => a!)),
  });
});
