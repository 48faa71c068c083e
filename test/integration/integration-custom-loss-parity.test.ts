// A custom loss module (Huber, delta 1, returned per element [n, 2] and averaged over the trailing
// axis by the run) on a regression MLP trains the model that single-process tfjs trains with a
// Huber written separately in the test: N=1, N=2 with uneven shards (global batch 7: 4 + 3, and a
// short last batch), N=2 with gradient accumulation, and N=2 with sample weights from an .npy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { customReferenceTrain, HUBER_ELEMENTS, referenceHuber, scaleLabels, writeLossModule } from '../helpers/custom-loss.ts';
import { assertWeightsClose, buildConfig, initialWeights, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { writeWeights } from '../helpers/weighted-reference.ts';

const dir = tempDir('custom-loss-parity');
const COUNT = 30;
const data = writeDataset(dir, 'train', COUNT, 'regression', 21);
scaleLabels(data.labels, 3); // errors on both sides of delta 1
const huber = writeLossModule(dir, 'huber.mjs', HUBER_ELEMENTS);

const raw = (name: string, extra: { training?: object; weights?: string } = {}) => ({
  name,
  model: { module: writeModelModule(dir, 'linear') },
  loss: { module: huber },
  data: { train: { ...data, ...(extra.weights ? { weights: extra.weights } : {}) } },
  training: { batchSize: 7, epochs: 2, seed: 6, ...extra.training },
  optimizer: { name: 'sgd', learningRate: 0.3 },
});

test('a Huber loss module: N=1, N=2 (uneven shards) and N=2 with accumulateSteps 2 equal the reference', async (t) => {
  const cfg1 = buildConfig(dir, raw('huber'), 1);
  const ref = await customReferenceTrain(cfg1, referenceHuber, null);
  const init = await initialWeights(cfg1);
  for (const [n, extra] of [
    [1, {}],
    [2, {}],
    [2, { training: { accumulateSteps: 2 } }],
  ] as const) {
    const what = `Huber, N=${n}${'training' in extra ? ', accumulateSteps 2' : ''}`;
    const r = await train(buildConfig(dir, raw(`huber-${n}-${'training' in extra ? 'acc' : 'plain'}`, extra), n), silent);
    assertWeightsClose(t, r.weights, ref.weights, what, { initial: init });
    assert.ok(Math.abs(r.finalLoss - ref.lastLoss) <= 1e-5 * Math.abs(ref.lastLoss), `${what}: reported loss ${r.finalLoss}, reference ${ref.lastLoss}`);
  }
  ref.model.dispose();
});

test('a Huber loss module with sample weights from an .npy: N=2 equals the weighted reference', async (t) => {
  const w = writeWeights(dir, 'huber', COUNT, 77);
  const cfg = buildConfig(dir, raw('huber-weighted', { weights: w.file }), 2);
  const ref = await customReferenceTrain(cfg, referenceHuber, w.values);
  const r = await train(cfg, silent);
  assertWeightsClose(t, r.weights, ref.weights, 'weighted Huber, N=2', { initial: await initialWeights(cfg) });
  assert.ok(Math.abs(r.finalLoss - ref.lastLoss) <= 1e-5 * Math.abs(ref.lastLoss), `reported loss ${r.finalLoss}, reference ${ref.lastLoss}`);
  ref.model.dispose();
});
