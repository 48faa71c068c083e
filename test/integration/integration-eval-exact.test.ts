// Evaluation is exact: with data.eval set, the loss, accuracy and mean absolute error the run
// reports equal a single-process evaluation over the whole eval set, even when the eval set
// (23 samples) splits into batches of 8 (8 + 8 + 7) and each batch unevenly over 3 workers.
// Evaluations in the middle of the run (eval.every) must not disturb training either.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import {
  assertWeightsClose,
  buildConfig,
  buildReferenceModel,
  evaluateReference,
  loadTf,
  referenceTrain,
  setFlatWeights,
  silent,
  tempDir,
  writeDataset,
  writeModelModule,
  type ReferenceEval,
} from '../helpers/train-fixture.ts';

const dir = tempDir('eval');

const closeTo = (got: number, want: number, what: string) =>
  assert.ok(Math.abs(got - want) <= 1e-6 + 1e-5 * Math.abs(want), `${what}: ${got} vs single-process ${want} (diff ${got - want})`);

for (const [loss, kind, labels] of [
  ['categoricalCrossentropy', 'mlp', 'onehot'],
  ['sparseCategoricalCrossentropy', 'mlp', 'index'],
] as const) {
  test(`eval exact (${loss}): 23 eval samples, eval batch 8, N = 3`, async (t) => {
    const raw = {
      name: `eval-${loss}`,
      model: { module: writeModelModule(dir, kind) },
      loss,
      data: { train: writeDataset(dir, `train-${labels}`, 30, labels, 121), eval: writeDataset(dir, `eval-${labels}`, 23, labels, 122) },
      training: { batchSize: 9, epochs: 2, seed: 37 },
      eval: { batchSize: 8, every: 3 },
      optimizer: { name: 'sgd', learningRate: 0.5 },
    };
    const cfg = buildConfig(dir, raw, 3);
    const tf = await loadTf();
    // The reference's own evaluations at the steps the run evaluates in the middle (3, 6).
    const midRef = new Map<number, ReferenceEval>();
    const ref = await referenceTrain(cfg, {
      onStep: (done, m) => {
        if (done % 3 === 0) midRef.set(done, evaluateReference(tf, m, cfg.data.eval!, loss));
      },
    });
    const r = await train(cfg, silent);
    assert.equal(r.steps, 8);
    assertWeightsClose(t, r.weights, ref.weights, 'final weights with evaluations between steps');

    // The final evaluation against a single-process evaluation of the run's own final weights.
    const model = await buildReferenceModel(tf, cfg);
    setFlatWeights(tf, model, r.weights);
    const want = evaluateReference(tf, model, cfg.data.eval!, loss);
    assert.ok(r.eval, 'TrainResult.eval is set');
    t.diagnostic(
      `final eval: loss ${r.eval.loss} vs ${want.loss} (diff ${r.eval.loss - want.loss}); accuracy ${r.eval.accuracy} vs ${want.accuracy}; mae ${r.eval.mae} vs ${want.mae}`,
    );
    assert.equal(r.eval.samples, 23);
    closeTo(r.eval.loss, want.loss, 'eval loss');
    assert.equal(r.eval.accuracy, want.accuracy, 'eval accuracy');
    closeTo(r.eval.mae, want.mae, 'eval mae');

    // The evaluations in the middle of the run, against the reference model at those steps.
    const lines = fs
      .readFileSync(path.join(cfg.runDir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const evals = lines.filter((l) => l.type === 'eval');
    assert.deepEqual(
      evals.map((l) => l.step),
      [3, 6, 8],
      'eval lines at steps 3, 6 and the end',
    );
    for (const l of evals.slice(0, 2)) {
      const w = midRef.get(l.step)!;
      assert.equal(l.samples, 23);
      closeTo(l.loss, w.loss, `eval loss at step ${l.step}`);
      assert.equal(l.accuracy, w.accuracy, `eval accuracy at step ${l.step}`);
    }
    model.dispose();
    ref.model.dispose();
  });
}
