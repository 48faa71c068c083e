// The batch plan against batches written out here, independently of BatchPlan: epoch e visits
// the samples in the order of epochPermutation(seed, e), B at a time; its short last batch is
// trained unless dropLast. The parity tests take their reference batches from BatchPlan itself,
// so a plan that reused one shuffle for every epoch would pass them; not this one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import { epochPermutation } from '../../src/shared/rng.ts';

interface Expected {
  epoch: number;
  indices: number[];
}

/** The batches of `epochs` passes over `count` samples, written out from the permutations. */
function expectedBatches(count: number, batch: number, seed: number, dropLast: boolean, epochs: number): Expected[] {
  const out: Expected[] = [];
  for (let epoch = 0; epoch < epochs; epoch++) {
    const perm = Array.from(epochPermutation(seed, epoch, count));
    for (let start = 0; start < count; start += batch) {
      const indices = perm.slice(start, start + batch);
      if (dropLast && indices.length < batch) continue;
      out.push({ epoch, indices });
    }
  }
  return out;
}

function planned(plan: BatchPlan): Expected[] {
  return Array.from({ length: plan.totalSteps }, (_, step) => {
    const b = plan.batchAt(step);
    assert.equal(b.step, step);
    return { epoch: b.epoch, indices: Array.from(b.indices) };
  });
}

const CASES = [
  { count: 23, batch: 5, seed: 7, dropLast: false, epochs: 3 }, // a short last batch of 3, trained
  { count: 23, batch: 5, seed: 7, dropLast: true, epochs: 3 }, // ... and dropped
  { count: 20, batch: 5, seed: 1, dropLast: false, epochs: 2 }, // no short batch
  { count: 20, batch: 5, seed: 1, dropLast: true, epochs: 2 },
  { count: 9, batch: 9, seed: 0, dropLast: false, epochs: 4 }, // one batch an epoch
];

for (const c of CASES) {
  test(`${c.count} samples, batch ${c.batch}, dropLast ${c.dropLast}, ${c.epochs} epochs: the batches written out from the permutations`, () => {
    const want = expectedBatches(c.count, c.batch, c.seed, c.dropLast, c.epochs);
    const plan = new BatchPlan(c.count, c.batch, c.seed, c.dropLast, { epochs: c.epochs, steps: null });
    assert.equal(plan.totalSteps, want.length);
    assert.equal(plan.stepsPerEpoch, want.length / c.epochs);
    assert.deepEqual(planned(plan), want);
  });
}

test('each epoch has its own order, and visits every sample once (at most once with dropLast)', () => {
  for (const dropLast of [false, true]) {
    const plan = new BatchPlan(23, 5, 7, dropLast, { epochs: 3, steps: null });
    const byEpoch: number[][] = [[], [], []];
    for (const b of planned(plan)) byEpoch[b.epoch]!.push(...b.indices);
    for (const [e, seen] of byEpoch.entries()) {
      assert.equal(seen.length, dropLast ? 20 : 23, `epoch ${e}: ${seen.length} samples`);
      assert.equal(new Set(seen).size, seen.length, `epoch ${e} visits a sample twice`);
      assert.ok(
        seen.every((i) => Number.isInteger(i) && i >= 0 && i < 23),
        `epoch ${e}: an index out of range`,
      );
    }
    assert.notDeepEqual(byEpoch[0], byEpoch[1], 'epochs 0 and 1 have the same order');
    assert.notDeepEqual(byEpoch[1], byEpoch[2], 'epochs 1 and 2 have the same order');
    // The short last batch: 3 samples ending each epoch, or none.
    const sizes = planned(plan).map((b) => b.indices.length);
    assert.deepEqual(sizes, dropLast ? Array(12).fill(5) : [5, 5, 5, 5, 3, 5, 5, 5, 5, 3, 5, 5, 5, 5, 3]);
  }
});

test('training.steps runs on across epoch boundaries, mid-epoch included', () => {
  const want = expectedBatches(23, 5, 3, false, 3).slice(0, 12);
  const plan = new BatchPlan(23, 5, 3, false, { epochs: null, steps: 12 });
  assert.equal(plan.totalSteps, 12);
  assert.deepEqual(planned(plan), want);
  // Any step on its own, in any order, as a resume asks for it.
  for (const step of [11, 0, 7, 5, 4]) assert.deepEqual(Array.from(plan.batchAt(step).indices), want[step]!.indices, `step ${step}`);
});
