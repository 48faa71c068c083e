// A functional model with two inputs (image, meta) and two outputs (class, box), trained from
// named .npy files with one loss per output and loss weights, on 2 workers with uneven shards
// (global batch 7: 4 + 3, and a short last batch), trains the model of the plain-tfjs reference
// of Keras's Σ_k lossWeights[k] · loss_k; its evaluation reports the total and each output's loss.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { assertWeightsClose, buildConfig, initialWeights, silent, tempDir } from '../helpers/train-fixture.ts';
import { twoIoEvalLosses, twoIoReferenceTrain, writeTwoIoData, writeTwoIoModel } from '../helpers/two-io-model.ts';

const dir = tempDir('two-io');

test('two inputs, two outputs, a loss and a weight per output: N=2 equals the reference, and eval reports loss.<output>', async (t) => {
  const trainFiles = writeTwoIoData(dir, 'train', 30, 1);
  const evalFiles = writeTwoIoData(dir, 'eval', 13, 2);
  const lw = { class: 1, box: 0.5 };
  const raw = {
    name: 'two-io',
    model: { module: writeTwoIoModel(dir) },
    loss: { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError' },
    lossWeights: lw,
    data: { train: { type: 'npy', ...trainFiles }, eval: { type: 'npy', ...evalFiles } },
    training: { batchSize: 7, epochs: 2, seed: 3 },
    eval: { batchSize: 5 },
    optimizer: { name: 'sgd', learningRate: 0.3 },
  };
  const cfg = buildConfig(dir, raw, 2);
  const ref = await twoIoReferenceTrain(cfg, trainFiles, lw);
  const r = await train(cfg, silent);
  assertWeightsClose(t, r.weights, ref.weights, 'two inputs, two outputs, N=2', { initial: await initialWeights(cfg) });
  const expect = await twoIoEvalLosses(ref.model, evalFiles);
  const got = r.eval!.outputLosses!;
  for (const o of ['class', 'box'] as const) assert.ok(Math.abs(got[o]! - expect[o]) <= 1e-5 * expect[o], `loss.${o} ${got[o]}, reference ${expect[o]}`);
  const total = lw.class * expect.class + lw.box * expect.box;
  assert.ok(Math.abs(r.eval!.loss - total) <= 1e-5 * total, `loss ${r.eval!.loss}, reference ${total}`);
  assert.equal(r.eval!.accuracy, null);
  // Accumulation slices every input and target alike.
  const acc = await train(
    buildConfig(dir, { ...raw, name: 'two-io-acc', training: { ...raw.training, accumulateSteps: 2 }, data: { train: raw.data.train } }, 2),
    silent,
  );
  assertWeightsClose(t, acc.weights, ref.weights, 'two inputs, two outputs, N=2, accumulateSteps 2');
  ref.model.dispose();
});
