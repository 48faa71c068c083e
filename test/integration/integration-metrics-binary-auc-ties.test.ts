// AUC from the scores every worker wrote is the single-process AUC, ties included, for a
// binaryCrossentropy model: a one-unit ReLU bottleneck sends every row with a negative
// pre-activation to the same score, so positives and negatives tie in large groups. 37 eval rows,
// eval batch 8, 3 workers. Precision, recall, F1 and accuracy of the yes/no problem (threshold
// 0.5) are checked too; with one output, macro and micro are the same number.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, FEATURES, silent, tempDir, writeDataset } from '../helpers/train-fixture.ts';
import { referencePredictions } from '../helpers/reference-predictions.ts';

const dir = tempDir('metrics-binary');

test('binary: AUC with tied scores, precision / recall / F1 / accuracy, over 37 rows on 3 workers', async (t) => {
  const model = path.join(dir, 'bottleneck.mjs');
  fs.writeFileSync(
    model,
    `export default (tf) => tf.sequential({ layers: [
    tf.layers.dense({ inputShape: [${FEATURES}], units: 1, activation: 'relu' }),
    tf.layers.dense({ units: 1, activation: 'sigmoid' }),
  ] });\n`,
  );
  const raw = {
    name: 'metrics-binary',
    model: { module: model },
    loss: 'binaryCrossentropy',
    data: { train: writeDataset(dir, 'train', 30, 'binary', 311), eval: writeDataset(dir, 'eval', 37, 'binary', 312) },
    training: { batchSize: 10, steps: 2, seed: 3 },
    optimizer: { name: 'sgd', learningRate: 0.1 },
    eval: { batchSize: 8 },
    metrics: ['auc', 'accuracy', 'precision', { name: 'recall', average: 'micro' }, 'f1'],
  };
  const cfg = buildConfig(dir, raw, 3);
  const r = await train(cfg, silent);

  // The reference: the same weights in this process, all 37 rows at once.
  const ref = await referencePredictions(cfg, r.weights);
  const p = Array.from(ref.scores);
  const y = Array.from(ref.labels).map((v) => v > 0.5);

  let wins = 0;
  let pairs = 0;
  let tiedPairs = 0;
  p.forEach((sp, i) => {
    if (!y[i]) return;
    p.forEach((sn, j) => {
      if (y[j]) return;
      pairs++;
      if (sp === sn) tiedPairs++;
      wins += sp > sn ? 1 : sp === sn ? 0.5 : 0;
    });
  });
  t.diagnostic(`${new Set(p).size} distinct scores over 37 rows; ${tiedPairs} of ${pairs} positive-negative pairs tie`);
  assert.ok(tiedPairs >= 20, 'the test needs many tied positive-negative pairs');
  const guess = p.map((v) => v > 0.5);
  const tp = guess.filter((g, i) => g && y[i]).length;
  const fp = guess.filter((g, i) => g && !y[i]).length;
  const fn = guess.filter((g, i) => !g && y[i]).length;
  const precision = tp + fp ? tp / (tp + fp) : 0;
  const recall = tp + fn ? tp / (tp + fn) : 0;
  const want = {
    auc: wins / pairs,
    accuracy: guess.filter((g, i) => g === y[i]).length / 37,
    precision_macro: precision,
    recall_micro: recall,
    f1_macro: precision + recall ? (2 * precision * recall) / (precision + recall) : 0,
  };
  const got = r.eval!.metrics!;
  t.diagnostic(`run ${JSON.stringify(got)}\nreference ${JSON.stringify(want)}`);
  assert.deepEqual(Object.keys(got), Object.keys(want));
  for (const [key, w] of Object.entries(want)) assert.ok(Math.abs((got[key] as number) - w) <= 1e-12, `${key}: ${got[key]} vs single-process ${w}`);
});
