// onNonFinite 'skip' on a run whose steps are mostly non-finite: past
// reliability.maxSkippedFraction of the run's steps (default 0.5) the run stops with
// E_NONFINITE, exit 1 and a checkpoint of the last completed step; under the bound it completes
// with exit 0 and a warning that counts the skipped steps.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { readNpy, writeNpy } from '../../src/shared/npy.ts';
import { checkpointSteps, readMetrics, runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { FEATURES, tempDir, writeDataset } from '../helpers/train-fixture.ts';

const dir = tempDir('skip-bound');
const [COUNT, B, SEED, EPOCHS] = [40, 10, 3, 2];
const model = path.join(dir, 'linear.mjs');
fs.writeFileSync(model, 'export default (tf) => tf.sequential({ layers: [tf.layers.dense({ inputShape: [6], units: 2 })] });\n');
// A feature of 1e30 overflows the squared error: every step whose batch holds row 0..29 is skipped.
const data = writeDataset(dir, 'train', COUNT, 'regression', 5);
const x = readNpy(data.features);
for (let row = 0; row < 30; row++) x.data[row * FEATURES] = 1e30;
writeNpy(data.features, x);
const plan = new BatchPlan(COUNT, B, SEED, false, { epochs: EPOCHS, steps: null });
const skipped = Array.from({ length: plan.totalSteps }, (_, k) => k).filter((k) => plan.batchAt(k).indices.some((i) => i < 30));

const run = (name: string, reliability: Record<string, unknown>) =>
  runCliAsync([
    'train',
    writeConfigFile(dir, name, {
      model: { module: model },
      loss: 'meanSquaredError',
      data: { train: data },
      training: { batchSize: B, epochs: EPOCHS, seed: SEED },
      optimizer: { name: 'sgd', learningRate: 0.05 },
      log: { every: 1 },
      reliability: { onNonFinite: 'skip', ...reliability },
    }),
    '--simulate',
    '2',
    '--backend',
    'cpu',
    '--run-dir',
    path.join(dir, name),
  ]);

test('more than half the steps skipped (the default bound): E_NONFINITE, exit 1, a checkpoint', async (t) => {
  assert.equal(skipped.length, plan.totalSteps, 'the fixture poisons every batch');
  const r = await run('default', {});
  t.diagnostic(r.stderr.trim());
  assert.equal(r.code, 1, r.stderr);
  // The 5th skip of 8 steps passes 0.5: steps 1..4 were skipped (and count as completed); every
  // step number is 1-based, as the train lines: step 5 is the one that stops it.
  assert.match(
    r.stderr,
    /^error E_NONFINITE: step 5: non-finite loss or gradient from ranks? [\d, ]+: 5 of the run's 8 steps would be skipped, more than reliability\.maxSkippedFraction \(0\.5\) allows\n/m,
  );
  assert.match(r.stderr, /the last completed step \(4\) is in \S+step-4/);
  assert.deepEqual(checkpointSteps(path.join(dir, 'default')), [4]);
  const skips = readMetrics(path.join(dir, 'default', 'metrics.jsonl')).filter((l) => l.type === 'skip');
  assert.deepEqual(
    skips.map((s) => s.step),
    [1, 2, 3, 4],
  );
});

test('under a bound of 1: the run completes, exit 0, with a warning counting the skipped steps', async () => {
  const r = await run('lenient', { maxSkippedFraction: 1 });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    new RegExp(
      `warning: ${skipped.length} of ${plan.totalSteps} steps were skipped \\(a non-finite loss or gradient; reliability\\.onNonFinite: skip\\), so the weights had ${plan.totalSteps - skipped.length} updates`,
    ),
  );
  assert.ok(fs.existsSync(path.join(dir, 'lenient', 'final', 'model.json')));
});
