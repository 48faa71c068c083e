// checkpoint.best may watch one output's figure of a model with several: eval.accuracy.class (max
// by default) for the two-output model ('class' softmax, 'box' regression). Every evaluation's
// step is also a checkpoint, so the test computes each step's accuracy of the class output
// itself, from the checkpoint's model and the eval rows (plain tfjs predictions, argmax counted
// here, not the code under test), picks the best step (the first of equal values, as Keras), and
// finds that step in best.json and its weights in best/. The printed eval line has each output's
// figures.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Tensor } from '@tensorflow/tfjs';
import { train } from '../../src/coordinator/train.ts';
import { readLayersModel } from '../../src/shared/model-files.ts';
import { readNpy } from '../../src/shared/npy.ts';
import { buildConfig, loadTf, silent, tempDir } from '../helpers/train-fixture.ts';
import { writeTwoIoData, writeTwoIoModel } from '../helpers/two-io-model.ts';

test('checkpoint.best on eval.accuracy.class keeps the step an independent accuracy of the class output picks', async () => {
  const dir = tempDir('best-output-accuracy');
  const evalFiles = writeTwoIoData(dir, 'eval', 31, 22);
  const cfg = buildConfig(
    dir,
    {
      name: 'best-output-accuracy',
      model: { module: writeTwoIoModel(dir) },
      loss: { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError' },
      // The box loss weighs much: the total loss and the class accuracy do not agree on the best step.
      lossWeights: { class: 1, box: 3 },
      data: { train: { type: 'npy', ...writeTwoIoData(dir, 'train', 32, 21) }, eval: { type: 'npy', ...evalFiles } },
      training: { batchSize: 8, steps: 16, seed: 4 },
      // A large rate: the figures go up and down, so the best step is not simply the last.
      optimizer: { name: 'momentum', learningRate: 0.3, momentum: 0.9 },
      eval: { every: 2, batchSize: 5 },
      checkpoint: { every: 2, keep: 100, best: { monitor: 'eval.accuracy.class' } },
    },
    2,
  );
  assert.equal(cfg.checkpoint.best?.mode, 'max', 'the mode follows the figure: an accuracy');
  const lines: string[] = [];
  await train(cfg, { ...silent, line: (s: string) => lines.push(s) });

  const tf = await loadTf();
  const t = (file: string) => {
    const a = readNpy(file);
    return tf.tensor(a.data, a.shape);
  };
  const xs = [t(evalFiles.features.image), t(evalFiles.features.meta)];
  const labels = Array.from(readNpy(evalFiles.labels.class).data);
  const values: Array<{ step: number; value: number }> = [];
  for (let step = 2; step <= 16; step += 2) {
    const model = await tf.loadLayersModel({
      load: async () => readLayersModel(path.join(cfg.runDir, 'checkpoints', `step-${step}`, 'model.json')) as never,
    });
    const [cls, box] = model.predict(xs) as Tensor[];
    const scores = cls!.dataSync() as Float32Array;
    const right = labels.filter((y, i) => {
      const row = Array.from(scores.subarray(i * 3, (i + 1) * 3));
      return row.indexOf(Math.max(...row)) === y;
    }).length;
    values.push({ step, value: right / labels.length });
    tf.dispose([cls!, box!]);
    model.dispose();
  }
  const best = values.reduce((a, b) => (b.value > a.value ? b : a));
  assert.ok(new Set(values.map((v) => v.value)).size > 2, `the accuracy hardly moves: ${JSON.stringify(values)}`);
  assert.ok(best.step !== 16, `the last step is the best: the test cannot tell a best checkpoint from final/ (${JSON.stringify(values)})`);

  const record = JSON.parse(fs.readFileSync(path.join(cfg.runDir, 'best', 'best.json'), 'utf8')) as {
    step: number;
    monitor: string;
    mode: string;
    value: number;
  };
  assert.equal(record.monitor, 'eval.accuracy.class');
  assert.equal(record.mode, 'max');
  assert.equal(record.step, best.step, `best.json names step ${record.step}; the class accuracy of each step: ${JSON.stringify(values)}`);
  assert.equal(record.value, best.value);
  const weights = (d: string) => fs.readFileSync(path.join(d, 'weights.bin'));
  assert.ok(
    weights(path.join(cfg.runDir, 'best')).equals(weights(path.join(cfg.runDir, 'checkpoints', `step-${best.step}`))),
    'best/ does not hold the weights of that step',
  );
  // The total loss would pick another step: the monitor is the class output's accuracy.
  const evals = fs
    .readFileSync(path.join(cfg.runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((l) => l.type === 'eval');
  const byLoss = evals.reduce((a, b) => (b.loss < a.loss ? b : a));
  assert.notEqual(byLoss.step, best.step, 'the total loss and the class accuracy agree on the best step: the test cannot tell them apart');
  // Without metrics, the printed eval line has each output's shipped figures (no top-5: 3 classes).
  const printed = lines.find((l) => l.startsWith('eval @ step 2:'))!;
  assert.match(printed, /: loss \S+ loss\.class \S+ accuracy\.class \S+% mae\.class \S+ loss\.box \S+ mae\.box \S+ \(31 samples\)$/, printed);
  tf.dispose(xs);
});
