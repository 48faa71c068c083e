// Class weights and sample weights on 2 workers with uneven shards (global batch 7: 4 + 3, and a
// short last batch of 2) train the model that single-process tfjs trains with Keras's weighted
// loss, mean_i(w_i · l_i) over the global batch (test/helpers/weighted-reference.ts); the loss
// the run reports is that weighted mean too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { assertWeightsClose, buildConfig, initialWeights, loadTf, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { sampleWeightsOf, weightedReferenceTrain, writeWeights } from '../helpers/weighted-reference.ts';

const dir = tempDir('weighted-parity');
const COUNT = 30;

test('class weights (a map, one class unnamed) with class-index labels and an L2 penalty: N=2 equals the weighted reference', async (t) => {
  const train30 = writeDataset(dir, 'index', COUNT, 'index', 11);
  const classWeights = { 0: 3, 2: 0.25 };
  const raw = {
    name: 'class-weights',
    model: { module: writeModelModule(dir, 'l2') },
    loss: 'sparseCategoricalCrossentropy',
    data: { train: train30 },
    training: { batchSize: 7, epochs: 2, seed: 4, classWeights },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  };
  const cfg = buildConfig(dir, raw, 2);
  const tf = await loadTf();
  const ref = await weightedReferenceTrain(cfg, sampleWeightsOf(tf, train30, classWeights, null));
  const r = await train(cfg, silent);
  assertWeightsClose(t, r.weights, ref.weights, 'class weights, N=2', { initial: await initialWeights(cfg) });
  assert.ok(Math.abs(r.finalLoss - ref.lastLoss) <= 1e-5 * Math.abs(ref.lastLoss), `reported loss ${r.finalLoss}, reference ${ref.lastLoss}`);
  ref.model.dispose();
});

test('sample weights from an .npy times class weights (a list) with one-hot labels: N=1 and N=2 equal the weighted reference', async (t) => {
  const onehot = writeDataset(dir, 'onehot', COUNT, 'onehot', 12);
  const w = writeWeights(dir, 'onehot', COUNT, 99, true); // shape [N, 1]
  const classWeights = [0.5, 2, 1.5];
  const raw = (n: number) => ({
    name: `sample-weights-${n}`,
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: { ...onehot, weights: w.file } },
    training: { batchSize: 7, epochs: 2, seed: 5, classWeights },
    optimizer: { name: 'momentum', learningRate: 0.2 },
  });
  const tf = await loadTf();
  const ref = await weightedReferenceTrain(buildConfig(dir, raw(1), 1), sampleWeightsOf(tf, onehot, Object.assign({}, classWeights), w.values));
  const init = await initialWeights(buildConfig(dir, raw(1), 1));
  for (const n of [1, 2]) {
    const r = await train(buildConfig(dir, raw(n), n), silent);
    assertWeightsClose(t, r.weights, ref.weights, `sample x class weights, N=${n}`, { initial: init });
    assert.ok(Math.abs(r.finalLoss - ref.lastLoss) <= 1e-5 * Math.abs(ref.lastLoss), `N=${n}: reported loss ${r.finalLoss}, reference ${ref.lastLoss}`);
  }
  ref.model.dispose();
});
