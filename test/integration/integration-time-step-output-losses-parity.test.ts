// sparseCategoricalCrossentropy on a per-time-step output (timeDistributed dense over 5 steps:
// [n, 5, 3]) averages over the steps as tfjs and Keras do, with labels of one class per step
// ([n, 5] for training, [n, 5, 1] for eval, both accepted): N=2 with uneven shards (global batch
// 7: 4 + 3) trains tfjs-layers' own weights, and the final eval's loss and accuracy (the fraction
// of steps right) equal tfjs's model.evaluate; its top-2 accuracy is the fraction of steps whose
// class is among the 2 most probable, counted by hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import type { NdArray } from '../../src/shared/npy.ts';
import { referencePredictions } from '../helpers/reference-predictions.ts';
import { layersReferenceEval, layersReferenceTrain, writeFeatures, writeLabels, writeLayersModule } from '../helpers/positional-output.ts';
import { assertWeightsClose, buildConfig, initialWeights, silent, tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('time-step-output');
const STEPS = 5;
const FEATURES = 4;

const layers = `
  tf.layers.timeDistributed({ inputShape: [${STEPS}, ${FEATURES}], layer: tf.layers.dense({ units: 6, activation: 'tanh' }) }),
  tf.layers.timeDistributed({ layer: tf.layers.dense({ units: 3, activation: 'softmax' }) }),`;

/** Each step's class: how many of its first two features are positive (0, 1 or 2). */
function stepClasses(x: NdArray, shape: number[]): NdArray {
  const steps = x.data.length / FEATURES;
  const d = new Int32Array(steps);
  for (let s = 0; s < steps; s++) d[s] = (x.data[s * FEATURES]! > 0 ? 1 : 0) + (x.data[s * FEATURES + 1]! > 0 ? 1 : 0);
  return { dtype: 'int32', shape, data: d };
}

test('sparseCategoricalCrossentropy on a [n, 5, 3] time-step output: N=2 trains tfjs weights, eval equals model.evaluate', async (t) => {
  const trainX = writeFeatures(dir, 'train', 20, [STEPS, FEATURES], 41);
  const evalX = writeFeatures(dir, 'eval', 13, [STEPS, FEATURES], 42);
  const yTrain = stepClasses(trainX.x, [20, STEPS]);
  const yEval = stepClasses(evalX.x, [13, STEPS, 1]);
  const raw = {
    name: 'time-steps',
    model: { module: writeLayersModule(dir, 'time-steps', layers) },
    loss: 'sparseCategoricalCrossentropy',
    data: {
      train: { type: 'npy', features: trainX.file, labels: writeLabels(dir, 'train', yTrain) },
      eval: { type: 'npy', features: evalX.file, labels: writeLabels(dir, 'eval', yEval) },
    },
    training: { batchSize: 7, epochs: 3, seed: 12 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
    eval: { topK: 2 },
  };
  const cfg = buildConfig(dir, raw, 2);
  const want = await layersReferenceTrain(cfg, trainX.x, yTrain);
  const r = await train(cfg, silent);
  assertWeightsClose(t, r.weights, want, 'time steps, N=2', { initial: await initialWeights(cfg) });

  const [loss, accuracy] = await layersReferenceEval(cfg, r.weights, evalX.x, yEval, ['accuracy']);
  assert.ok(r.eval, 'the run evaluated data.eval');
  t.diagnostic(`eval: loss ${r.eval.loss} vs ${loss}; accuracy ${r.eval.accuracy} vs ${accuracy}`);
  assert.ok(Math.abs(r.eval.loss - loss!) <= 1e-6 + 1e-5 * loss!, `eval loss ${r.eval.loss} vs tfjs model.evaluate ${loss}`);
  assert.ok(Math.abs(r.eval.accuracy! - accuracy!) <= 1e-6, `eval accuracy ${r.eval.accuracy} vs tfjs model.evaluate ${accuracy}`);

  // Top-2 over the steps, counted by hand: a step is a hit when fewer than 2 classes score above its true one.
  const ref = await referencePredictions(cfg, r.weights);
  let hits = 0;
  for (let s = 0; s < 13 * STEPS; s++) {
    const own = ref.scores[s * 3 + ref.labels[s]!]!;
    if ([0, 1, 2].filter((c) => ref.scores[s * 3 + c]! > own).length < 2) hits++;
  }
  t.diagnostic(`top-2: ${r.eval.topK} vs ${hits} of ${13 * STEPS} steps`);
  assert.ok(Math.abs(r.eval.topK! - hits / (13 * STEPS)) <= 1e-6, `eval top-2 ${r.eval.topK} vs ${hits / (13 * STEPS)}, the fraction of steps`);
});
