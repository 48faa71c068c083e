// checkpoint.best may watch any value of the config's metrics: here eval.f1_macro and eval.auc
// (max by default). Every evaluation's step is also a checkpoint, so the test computes each
// step's macro F1 and macro one-vs-rest AUC itself, from the checkpoint's model and the eval
// rows (plain pairwise counting, not the code under test), picks the best step (the first of
// equal values, as Keras), and finds that step in best.json and its weights in best/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Tensor } from '@tensorflow/tfjs';
import { train } from '../../src/coordinator/train.ts';
import { readLayersModel } from '../../src/shared/model-files.ts';
import { buildConfig, CLASSES, loadData, loadTf, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

/** Macro F1 over the classes in the labels or the predictions; a 0/0 precision or recall is 0. */
function macroF1(pred: number[], y: number[]): number {
  const f1s: number[] = [];
  for (let c = 0; c < CLASSES; c++) {
    const tp = pred.filter((p, i) => p === c && y[i] === c).length;
    const predicted = pred.filter((p) => p === c).length;
    const actual = y.filter((t) => t === c).length;
    if (predicted === 0 && actual === 0) continue;
    const precision = predicted ? tp / predicted : 0;
    const recall = actual ? tp / actual : 0;
    f1s.push(precision + recall ? (2 * precision * recall) / (precision + recall) : 0);
  }
  return f1s.reduce((a, b) => a + b, 0) / f1s.length;
}

/** Mean over classes with positives and negatives of P(score of a positive > a negative's), ties 1/2. */
function macroAuc(scores: Float32Array, y: number[]): number {
  const aucs: number[] = [];
  for (let c = 0; c < CLASSES; c++) {
    const pos = y.flatMap((t, i) => (t === c ? [scores[i * CLASSES + c]!] : []));
    const neg = y.flatMap((t, i) => (t !== c ? [scores[i * CLASSES + c]!] : []));
    if (!pos.length || !neg.length) continue;
    let wins = 0;
    for (const p of pos) for (const n of neg) wins += p > n ? 1 : p === n ? 0.5 : 0;
    aucs.push(wins / (pos.length * neg.length));
  }
  return aucs.reduce((a, b) => a + b, 0) / aucs.length;
}

for (const [monitor, figure] of [
  ['eval.f1_macro', 'f1'],
  ['eval.auc', 'auc'],
] as const) {
  test(`checkpoint.best on ${monitor} keeps the step an independent ${figure} picks`, async () => {
    const dir = tempDir(`best-${figure}`);
    const evalSrc = writeDataset(dir, 'eval', 30, 'index', 22);
    const cfg = buildConfig(
      dir,
      {
        name: `best-${figure}`,
        model: { module: writeModelModule(dir, 'mlp') },
        loss: 'sparseCategoricalCrossentropy',
        data: { train: writeDataset(dir, 'train', 32, 'index', 21), eval: evalSrc },
        training: { batchSize: 8, steps: 14, seed: 4 },
        // A large rate: the figures go up and down, so the best step is not simply the last.
        optimizer: { name: 'momentum', learningRate: 1.5, momentum: 0.9 },
        metrics: ['f1', 'auc'],
        eval: { every: 2 },
        checkpoint: { every: 2, keep: 100, best: { monitor } },
      },
      2,
    );
    assert.equal(cfg.checkpoint.best?.mode, 'max');
    await train(cfg, silent);

    const tf = await loadTf();
    const { x, y } = loadData(tf, evalSrc);
    const labels = Array.from(y.dataSync() as Int32Array);
    const values: Array<{ step: number; value: number }> = [];
    for (let step = 2; step <= 14; step += 2) {
      const model = await tf.loadLayersModel({
        load: async () => readLayersModel(path.join(cfg.runDir, 'checkpoints', `step-${step}`, 'model.json')) as never,
      });
      const scores = Float32Array.from((model.predict(x) as Tensor).dataSync() as Float32Array);
      const pred = labels.map((_, i) => {
        const row = Array.from(scores.subarray(i * CLASSES, (i + 1) * CLASSES));
        return row.indexOf(Math.max(...row));
      });
      values.push({ step, value: figure === 'f1' ? macroF1(pred, labels) : macroAuc(scores, labels) });
    }
    const best = values.reduce((a, b) => (b.value > a.value + 1e-9 ? b : a));
    assert.ok(new Set(values.map((v) => v.value.toFixed(6))).size > 2, `the ${figure} hardly moves: ${JSON.stringify(values)}`);
    assert.ok(best.step !== 14, `the last step is the best: the test cannot tell a best checkpoint from final/ (${JSON.stringify(values)})`);

    const record = JSON.parse(fs.readFileSync(path.join(cfg.runDir, 'best', 'best.json'), 'utf8')) as {
      step: number;
      monitor: string;
      mode: string;
      value: number;
    };
    assert.equal(record.monitor, monitor);
    assert.equal(record.mode, 'max');
    assert.equal(record.step, best.step, `best.json names step ${record.step}; the ${figure} of each step: ${JSON.stringify(values)}`);
    assert.ok(Math.abs(record.value - best.value) < 1e-6, `${record.value} vs ${best.value}`);
    const weights = (d: string) => fs.readFileSync(path.join(d, 'weights.bin'));
    assert.ok(
      weights(path.join(cfg.runDir, 'best')).equals(weights(path.join(cfg.runDir, 'checkpoints', `step-${best.step}`))),
      'best/ does not hold the weights of that step',
    );
  });
}
