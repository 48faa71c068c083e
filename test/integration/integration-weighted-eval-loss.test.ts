// The eval loss as Keras's validation loss: weighted by the eval set's own sample weights,
// Σ w_i · l_i / N, and never by training.classWeights (class weights weigh training alone).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, buildReferenceModel, loadTf, setFlatWeights, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { weightedEvalLoss, writeWeights } from '../helpers/weighted-reference.ts';

const dir = tempDir('weighted-eval');
const trainSet = writeDataset(dir, 'train', 28, 'index', 41);
const evalSet = writeDataset(dir, 'eval', 23, 'index', 42);
const evalWeights = writeWeights(dir, 'eval', 23, 43);
const raw = (name: string, evalSource: object) => ({
  name,
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'sparseCategoricalCrossentropy',
  data: { train: trainSet, eval: evalSource },
  training: { batchSize: 7, epochs: 1, seed: 1, classWeights: { 0: 5, 1: 0.2 } },
  eval: { batchSize: 5 },
  optimizer: { name: 'sgd', learningRate: 0.3 },
});

/** The reference's eval loss of the run's final weights. */
async function referenceLoss(cfg: ReturnType<typeof buildConfig>, weights: Float32Array, w: Float32Array | null): Promise<number> {
  const tf = await loadTf();
  const model = await buildReferenceModel(tf, cfg);
  setFlatWeights(tf, model, weights);
  const wt = w ? tf.tensor1d(w) : null;
  const loss = weightedEvalLoss(tf, model, evalSet, cfg.loss, wt);
  wt?.dispose();
  model.dispose();
  return loss;
}

test('eval sample weights weigh the eval loss (Σ w·l / N); class weights do not', async () => {
  const cfgW = buildConfig(dir, raw('weighted-eval', { ...evalSet, weights: evalWeights.file }), 2);
  const weighted = await train(cfgW, silent);
  const expectW = await referenceLoss(cfgW, weighted.weights, evalWeights.values);
  assert.ok(Math.abs(weighted.eval!.loss - expectW) <= 1e-5 * expectW, `weighted eval loss ${weighted.eval!.loss}, reference ${expectW}`);
  const cfgU = buildConfig(dir, raw('plain-eval', evalSet), 2);
  const plain = await train(cfgU, silent);
  const expectU = await referenceLoss(cfgU, plain.weights, null);
  assert.ok(Math.abs(plain.eval!.loss - expectU) <= 1e-5 * expectU, `unweighted eval loss ${plain.eval!.loss}, reference ${expectU}`);
  // The two runs trained alike (the same class-weighted training set): only the eval weighting differs.
  assert.deepEqual(Buffer.from(plain.weights.buffer), Buffer.from(weighted.weights.buffer));
  assert.notEqual(weighted.eval!.loss, plain.eval!.loss);
});
