// Which samples each step trains on: epoch e visits the samples in the order of the seeded
// permutation (seed, e), B at a time. The last batch of an epoch is short unless dropLast.
// The plan is a pure function of the step number, so a run can resume at any step.
import { DataError } from '../shared/errors.ts';
import { epochPermutation } from '../shared/rng.ts';

export interface PlannedBatch {
  step: number;
  epoch: number;
  indices: Uint32Array; // dataset rows, in the order they are split over the ranks
}

export class BatchPlan {
  readonly stepsPerEpoch: number;
  readonly totalSteps: number;
  private cached: { epoch: number; perm: Uint32Array } | null = null;

  constructor(
    readonly count: number,
    readonly batch: number,
    readonly seed: number,
    readonly dropLast: boolean,
    length: { epochs: number | null; steps: number | null },
  ) {
    this.stepsPerEpoch = dropLast ? Math.floor(count / batch) : Math.ceil(count / batch);
    if (this.stepsPerEpoch === 0) {
      throw new DataError(`the training set has ${count} samples, fewer than one global batch of ${batch} with training.dropLast set`, 'lower training.batchSize or unset training.dropLast');
    }
    this.totalSteps = length.steps ?? (length.epochs ?? 1) * this.stepsPerEpoch;
  }

  batchAt(step: number): PlannedBatch {
    const epoch = Math.floor(step / this.stepsPerEpoch);
    const k = step % this.stepsPerEpoch;
    if (this.cached?.epoch !== epoch) this.cached = { epoch, perm: epochPermutation(this.seed, epoch, this.count) };
    const start = k * this.batch;
    return { step, epoch, indices: this.cached.perm.subarray(start, Math.min(this.count, start + this.batch)) };
  }
}
