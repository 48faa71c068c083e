// A loss or gradient that is not finite. The data has poisoned rows (a feature of 1e30: finite,
// so it passes any data check, but a linear model's squared error on it overflows float32), so
// the steps and ranks that see one are known in advance from the seeded batch plan:
//   onNonFinite 'stop'  exit 1, E_NONFINITE naming the step and the rank(s), a checkpoint;
//   onNonFinite 'skip'  the run completes; each such step is a 'skip' line of metrics.jsonl
//                       with its ranks, and the final weights are finite.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { readNpy, writeNpy } from '../../src/shared/npy.ts';
import { assignShards } from '../../src/shared/shard.ts';
import { checkpointSteps, readMetrics, runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { FEATURES, tempDir, writeDataset } from '../helpers/train-fixture.ts';

const dir = tempDir('chaos-nonfinite');
const COUNT = 40;
const B = 10;
const SEED = 6;
const EPOCHS = 2;
const N = 2;

const model = path.join(dir, 'linear-only.mjs');
fs.writeFileSync(model, 'export default (tf) => tf.sequential({ layers: [tf.layers.dense({ inputShape: [6], units: 2 })] });\n');

// Poison the first and the last row of step 2's batch (batchAt(1)): rank 0 and rank 1 both see one there.
const plan = new BatchPlan(COUNT, B, SEED, false, { epochs: EPOCHS, steps: null });
const step2 = plan.batchAt(1).indices;
const poisoned = [step2[0]!, step2[B - 1]!];
const data = writeDataset(dir, 'train', COUNT, 'regression', 77);
const x = readNpy(data.features);
for (const row of poisoned) x.data[row * FEATURES] = 1e30;
writeNpy(data.features, x);

/** step (1-based, as the train lines and every step number said) -> the ranks whose shard holds a poisoned row, in rank order. */
const expected = new Map<number, number[]>();
for (let step = 0; step < plan.totalSteps; step++) {
  const idx = plan.batchAt(step).indices;
  const ranks = assignShards(
    idx.length,
    Array.from({ length: N }, (_, r) => r),
  )
    .filter((s) => Array.from(idx.subarray(s.start, s.end)).some((i) => poisoned.includes(i)))
    .map((s) => s.rank);
  if (ranks.length) expected.set(step + 1, ranks);
}

const config = (onNonFinite: string) =>
  writeConfigFile(dir, onNonFinite, {
    model: { module: model },
    loss: 'meanSquaredError',
    data: { train: data },
    training: { batchSize: B, epochs: EPOCHS, seed: SEED },
    optimizer: { name: 'sgd', learningRate: 0.05 },
    log: { every: 1 },
    reliability: { onNonFinite },
  });
const run = (file: string, runDir: string) => runCliAsync(['train', file, '--simulate', String(N), '--backend', 'cpu', '--run-dir', runDir]);

test("onNonFinite 'stop': exit 1, E_NONFINITE naming the step and both ranks, and a checkpoint", async (t) => {
  assert.deepEqual(expected.get(2), [0, 1], 'fixture: step 2 has a poisoned row on each rank');
  assert.ok(!expected.has(1), 'fixture: step 1 is clean');
  const runDir = path.join(dir, 'runs', 'stop');
  const r = await run(config('stop'), runDir);
  t.diagnostic(r.stderr.trim().split('\n').slice(-3).join(' | '));
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /error E_NONFINITE: step 2: non-finite loss or gradient from ranks 0, 1\n/);
  assert.match(r.stderr, /hint: .*onNonFinite/);
  assert.match(r.stderr, /the last completed step \(1\) is in .*step-1/);
  assert.deepEqual(checkpointSteps(runDir), [1]);
});

test("onNonFinite 'skip': the run completes, metrics.jsonl has a skip line with the ranks of each bad step", async (t) => {
  const runDir = path.join(dir, 'runs', 'skip');
  const r = await run(config('skip'), runDir);
  assert.equal(r.code, 0, r.stderr);
  const skips = readMetrics(path.join(runDir, 'metrics.jsonl')).filter((l) => l.type === 'skip');
  t.diagnostic(`expected skips ${JSON.stringify([...expected])}; got ${JSON.stringify(skips.map((s) => [s.step, s.ranks]))}`);
  assert.deepEqual(
    skips.map((s) => [s.step, s.ranks]),
    [...expected].map(([step, ranks]) => [step, ranks]),
  );
  for (const s of skips) assert.match(s.message!, new RegExp(`^step ${s.step}: non-finite loss or gradient from ranks? ${s.ranks!.join(', ')}$`));
  assert.match(r.stdout, /step 2: non-finite loss or gradient from ranks 0, 1; step skipped \(1 so far\)/);
  const trained = readMetrics(path.join(runDir, 'metrics.jsonl'))
    .filter((l) => l.type === 'train')
    .map((l) => l.step);
  assert.equal(trained.length, plan.totalSteps - expected.size, `train lines: ${trained}`);
  const bin = fs.readFileSync(path.join(runDir, 'final', 'weights.bin'));
  const w = new Float32Array(bin.buffer, bin.byteOffset, bin.byteLength / 4);
  assert.ok(w.every(Number.isFinite), 'the final weights hold a NaN or an infinity');
  const state = JSON.parse(fs.readFileSync(path.join(runDir, 'checkpoints', `step-${plan.totalSteps}`, 'trainer-state.json'), 'utf8'));
  assert.deepEqual(state.skippedSteps, [...expected.keys()]);
});
