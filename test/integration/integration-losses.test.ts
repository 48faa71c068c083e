// The other losses against the single-process reference: sparse categorical cross-entropy
// (int32 class-index labels), binary cross-entropy (sigmoid output, 0/1 labels) and mean
// squared error (linear outputs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import {
  assertWeightsClose,
  buildConfig,
  initialWeights,
  referenceTrain,
  silent,
  tempDir,
  writeDataset,
  writeModelModule,
  type LabelKind,
  type ModelKind,
} from '../helpers/train-fixture.ts';

const dir = tempDir('losses');

const cases: Array<[string, ModelKind, LabelKind, number]> = [
  ['sparseCategoricalCrossentropy', 'mlp', 'index', 2],
  ['binaryCrossentropy', 'binary', 'binary', 3],
  ['meanSquaredError', 'linear', 'regression', 2],
];

for (const [loss, kind, labels, n] of cases) {
  test(`${loss} (${labels} labels) on N = ${n}`, async (t) => {
    const raw = {
      name: loss,
      model: { module: writeModelModule(dir, kind) },
      loss,
      data: { train: writeDataset(dir, labels, 42, labels, 91) },
      training: { batchSize: 10, epochs: 2, seed: 29 },
      optimizer: { name: 'sgd', learningRate: 0.3 },
    };
    const cfg = buildConfig(dir, raw, n);
    const ref = await referenceTrain(cfg);
    const r = await train(cfg, silent);
    assert.equal(r.steps, ref.steps);
    assertWeightsClose(t, r.weights, ref.weights, `${loss} N=${n}`, { initial: await initialWeights(cfg) });
    ref.model.dispose();
  });
}
