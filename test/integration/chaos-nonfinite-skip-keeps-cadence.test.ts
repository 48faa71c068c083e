// A step skipped for a non-finite gradient (onNonFinite 'skip') still gets the evaluation and
// the checkpoint due at it: the weights did not change, but a skipped step must not stretch the
// interval to the next checkpoint (a crash then would lose more steps than checkpoint.every says).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { train } from '../../src/coordinator/train.ts';
import { readNpy, writeNpy } from '../../src/shared/npy.ts';
import { checkpointSteps, readMetrics } from '../helpers/chaos.ts';
import { buildConfig, FEATURES, silent, tempDir, writeDataset } from '../helpers/train-fixture.ts';

test("onNonFinite 'skip': the skipped steps are evaluated and checkpointed at their interval", async () => {
  const dir = tempDir('skip-cadence');
  const [count, batch, seed, epochs] = [40, 10, 6, 2];
  // Poison one row of step 1's batch (a feature of 1e30: a linear model's squared error on it
  // overflows float32): step 1, which completes step 2, is skipped, and so is the step of the
  // second epoch that draws the row again.
  const plan = new BatchPlan(count, batch, seed, false, { epochs, steps: null });
  const data = writeDataset(dir, 'train', count, 'regression', 77);
  const x = readNpy(data.features);
  const row = plan.batchAt(1).indices[0]!;
  x.data[row * FEATURES] = 1e30;
  writeNpy(data.features, x);
  const skipped = Array.from({ length: plan.totalSteps }, (_, k) => k).filter((k) => plan.batchAt(k).indices.includes(row));
  const model = path.join(dir, 'linear.mjs');
  fs.writeFileSync(model, 'export default (tf) => tf.sequential({ layers: [tf.layers.dense({ inputShape: [6], units: 2 })] });\n');
  const cfg = buildConfig(
    dir,
    {
      model: { module: model },
      loss: 'meanSquaredError',
      data: { train: data, eval: writeDataset(dir, 'eval', 12, 'regression', 78) },
      training: { batchSize: batch, epochs, seed },
      optimizer: { name: 'sgd', learningRate: 0.05 },
      eval: { every: 2 },
      checkpoint: { every: 2, keep: 100 },
      reliability: { onNonFinite: 'skip' },
    },
    2,
  );
  await train(cfg, silent);
  const lines = readMetrics(path.join(cfg.runDir, 'metrics.jsonl'));
  assert.deepEqual(
    lines.filter((l) => l.type === 'skip').map((l) => l.step),
    skipped.map((k) => k + 1), // the skip lines number steps 1-based, as the train lines
    'the steps that draw the poisoned row are skipped',
  );
  assert.ok(skipped.length === 2 && skipped[0] === 1, `fixture: ${skipped}`);
  assert.deepEqual(
    lines.filter((l) => l.type === 'eval').map((l) => l.step),
    [2, 4, 6, 8],
  );
  assert.deepEqual(checkpointSteps(cfg.runDir), [2, 4, 6, 8]);
});
