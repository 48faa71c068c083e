// Which samples each step trains on: epoch e visits the samples in the order of the seeded
// permutation (seed, e) -- or of a shard source's shard-aware order (shard-order.ts) -- B at a
// time. The last batch of an epoch is short unless dropLast.
// The plan is a pure function of the step number, so a run can resume at any step.
import type { Every } from '../config/types.ts';
import { DataError } from '../shared/errors.ts';
import { epochPermutation } from '../shared/rng.ts';
import type { EpochOrder } from './shard-order.ts';

export interface PlannedBatch {
  step: number;
  epoch: number;
  indices: Uint32Array; // dataset rows, in the order they are split over the ranks
}

export class BatchPlan {
  readonly stepsPerEpoch: number;
  readonly totalSteps: number;
  // The last two epochs' permutations: near an epoch's end the input feed and the staging
  // ahead ask for the next one's steps, and the current step for this one's.
  private cached: { epoch: number; perm: Uint32Array }[] = [];

  constructor(
    readonly count: number,
    readonly batch: number,
    readonly seed: number,
    readonly dropLast: boolean,
    length: { epochs: number | null; steps: number | null },
    private readonly order: EpochOrder = (s, e) => epochPermutation(s, e, count),
  ) {
    // Fewer samples than one global batch is almost always a mistake (a wrong file, a wrong
    // split): say so rather than train on one short batch per epoch.
    if (count < batch) {
      throw new DataError(
        `data.train: the training set has ${count} samples, fewer than one global batch of ${batch}`,
        'lower training.batchSize, or check data.train',
      );
    }
    this.stepsPerEpoch = dropLast ? Math.floor(count / batch) : Math.ceil(count / batch);
    this.totalSteps = length.steps ?? (length.epochs ?? 1) * this.stepsPerEpoch;
  }

  /**
   * Whether something done every `every` (eval.every, checkpoint.every) is due once `completed`
   * steps are done: every k steps (0: never), or at the end of every k-th epoch.
   */
  due(every: Every, completed: number): boolean {
    const k = typeof every === 'number' ? every : every.epochs * this.stepsPerEpoch;
    return k > 0 && completed > 0 && completed % k === 0;
  }

  batchAt(step: number): PlannedBatch {
    const epoch = Math.floor(step / this.stepsPerEpoch);
    const k = step % this.stepsPerEpoch;
    let c = this.cached.find((x) => x.epoch === epoch);
    if (!c) this.cached = [(c = { epoch, perm: this.order(this.seed, epoch) }), ...this.cached.slice(0, 1)];
    const start = k * this.batch;
    return { step, epoch, indices: c.perm.subarray(start, Math.min(this.count, start + this.batch)) };
  }
}
