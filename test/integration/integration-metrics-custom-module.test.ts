// A custom metric module: its default export runs in every worker on each eval shard with the
// worker's tf and returns named sums; they are added over batches and workers, and its
// finalize(sums, { samples }) gives the values logged as <name>.<key>. A module without finalize
// logs its sums. 37 eval rows, batches of 8, 3 workers; the reference is computed here from the
// same model's predictions over all rows at once.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { referencePredictions } from '../helpers/reference-predictions.ts';

const dir = tempDir('metrics-custom');

// TypeScript, as a user would write it: right answers and confident rows, and a finalize.
fs.writeFileSync(
  path.join(dir, 'confidence.ts'),
  `
import type * as TF from '@tensorflow/tfjs';
export default function (yTrue: TF.Tensor, yPred: TF.Tensor, tf: typeof TF): Record<string, TF.Tensor | number> {
  const right = tf.sum(tf.cast(tf.equal(tf.argMax(yTrue, -1), tf.argMax(yPred, -1)), 'float32'));
  const confident = tf.sum(tf.cast(tf.greater(tf.max(yPred, -1), 0.5), 'float32'));
  return { right, confident, rows: yTrue.shape[0] as number };
}
export function finalize(sums: Record<string, number>, info: { samples: number }) {
  return { accuracy: sums.right / sums.rows, confidentShare: sums.confident / info.samples };
}
`,
);
// No finalize: the sums are the values.
fs.writeFileSync(
  path.join(dir, 'sums.mjs'),
  `
export default (yTrue, yPred, tf) => ({ rows: tf.scalar(yTrue.shape[0]), firstClassScore: tf.sum(tf.slice(yPred, [0, 0], [-1, 1])) });
`,
);

test('custom metric modules: named sums over batches and workers, then finalize', async (t) => {
  const raw = {
    name: 'metrics-custom',
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 30, 'onehot', 511), eval: writeDataset(dir, 'eval', 37, 'onehot', 512) },
    training: { batchSize: 10, epochs: 1, seed: 2 },
    optimizer: { name: 'sgd', learningRate: 0.3 },
    eval: { batchSize: 8 },
    metrics: ['accuracy', { module: './confidence.ts' }, { module: './sums.mjs', name: 'plain' }],
  };
  const cfg = buildConfig(dir, raw, 3);
  const r = await train(cfg, silent);

  const ref = await referencePredictions(cfg, r.weights);
  const p = ref.scores;
  const y = ref.labels;
  const row = (a: ArrayLike<number>, i: number) => Array.from({ length: 3 }, (_, c) => a[i * 3 + c]!);
  const argmax = (xs: number[]) => xs.indexOf(Math.max(...xs));
  let right = 0;
  let confident = 0;
  let firstClass = 0;
  for (let i = 0; i < 37; i++) {
    if (argmax(row(y, i)) === argmax(row(p, i))) right++;
    if (Math.max(...row(p, i)) > 0.5) confident++;
    firstClass += p[i * 3]!;
  }
  const got = r.eval!.metrics!;
  t.diagnostic(JSON.stringify(got));
  assert.deepEqual(Object.keys(got), ['accuracy', 'confidence.accuracy', 'confidence.confidentShare', 'plain.rows', 'plain.firstClassScore']);
  assert.equal(got['confidence.accuracy'], right / 37);
  assert.equal(got['confidence.accuracy'], got.accuracy, 'the custom accuracy is the built-in one');
  assert.equal(got['confidence.confidentShare'], confident / 37);
  assert.equal(got['plain.rows'], 37, 'rows summed over 5 batches and 3 workers');
  assert.ok(Math.abs(got['plain.firstClassScore']! - firstClass) < 1e-5, `firstClassScore ${got['plain.firstClassScore']} vs ${firstClass}`);
  const line = fs
    .readFileSync(path.join(cfg.runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .find((l) => l.type === 'eval');
  assert.deepEqual(line.metrics, got);
});
