// A dataset whose size is not a multiple of the global batch: with dropLast false the short
// final batch of each epoch is trained (as a batch of its own size, loss averaged over it);
// with dropLast true it is skipped. Both match single-process training on the same batches.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { train } from '../../src/coordinator/train.ts';
import { assertWeightsClose, buildConfig, initialWeights, referenceTrain, silent, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('short');
const model = { module: writeModelModule(dir, 'mlp') };
const data = { train: writeDataset(dir, 'train', 43, 'onehot', 51) }; // 43 = 5 x 8 + 3

test('short final batch: the plan both sides follow visits every sample once per epoch, the last batch short', () => {
  // Both the run and the reference take their batches from BatchPlan: check it independently.
  for (const dropLast of [false, true]) {
    const plan = new BatchPlan(43, 8, 13, dropLast, { epochs: 2, steps: null });
    const sizes: number[] = [];
    const seen = [new Set<number>(), new Set<number>()];
    for (let s = 0; s < plan.totalSteps; s++) {
      const b = plan.batchAt(s);
      sizes.push(b.indices.length);
      for (const i of b.indices) {
        assert.ok(i < 43 && !seen[b.epoch]!.has(i), `step ${s}: index ${i} out of range or repeated within epoch ${b.epoch}`);
        seen[b.epoch]!.add(i);
      }
    }
    assert.deepEqual(sizes, dropLast ? [8, 8, 8, 8, 8, 8, 8, 8, 8, 8] : [8, 8, 8, 8, 8, 3, 8, 8, 8, 8, 8, 3]);
    for (const s of seen) assert.equal(s.size, dropLast ? 40 : 43);
  }
});

for (const [dropLast, steps] of [
  [false, 12],
  [true, 10],
] as const) {
  test(`short final batch: 43 samples, batch 8, 2 epochs, dropLast ${dropLast} -> ${steps} steps`, async (t) => {
    const raw = {
      name: `short-${dropLast}`,
      model,
      loss: 'categoricalCrossentropy',
      data,
      training: { batchSize: 8, epochs: 2, seed: 13, dropLast },
      optimizer: { name: 'sgd', learningRate: 0.5 },
    };
    const cfg = buildConfig(dir, raw, 2);
    const ref = await referenceTrain(cfg);
    assert.equal(ref.steps, steps);
    const r = await train(cfg, silent);
    assert.equal(r.steps, steps, 'TrainResult.steps');
    const lines = fs
      .readFileSync(path.join(cfg.runDir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const trainLines = lines.filter((l) => l.type === 'train');
    assert.equal(trainLines.at(-1).step, steps, 'the last metrics line is written after the last step');
    assertWeightsClose(t, r.weights, ref.weights, `dropLast=${dropLast}`, { initial: await initialWeights(cfg) });
    ref.model.dispose();
  });
}

test('short final batch: the short batch changes the result (dropLast true != false)', async () => {
  // Guards the two tests above against a plan that ignores dropLast on both sides.
  const mk = (dropLast: boolean) =>
    buildConfig(
      dir,
      {
        name: `short-guard-${dropLast}`,
        model,
        loss: 'categoricalCrossentropy',
        data,
        training: { batchSize: 8, epochs: 2, seed: 13, dropLast },
        optimizer: { name: 'sgd', learningRate: 0.5 },
      },
      1,
    );
  const a = await referenceTrain(mk(false));
  const b = await referenceTrain(mk(true));
  assert.notDeepEqual(Array.from(a.weights), Array.from(b.weights));
  a.model.dispose();
  b.model.dispose();
});
