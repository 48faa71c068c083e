// The input side of the training loop for rows made on demand (a RowPipeline: decoded images, a
// map-style module): before a step's batch is staged its rows are made ready, and the rows of the
// next `data.prefetch` steps are started, so the threads decode while the workers compute. The
// wait, when the threads fall behind, is the step's data_wait_ms (and `input-bound` on the
// progress line when it is more than a tenth of the step). Rows of earlier steps are released
// once a later step is ready: a step that reruns after a recovery still finds its own.
// The wait is bounded (data-wait.ts): past reliability.stepTimeout it is a DataError naming the
// sample waited for; a stop request (a signal) ends it, and ready() then gives no batch.
// A dataset without a pipeline (arrays in memory or mapped) is always ready and waits 0 ms.
// On several machines each makes only its own workers' part of the batch (machine-rows.ts).
import { performance } from 'node:perf_hooks';
import type { BatchPlan, PlannedBatch } from '../data/batch-plan.ts';
import type { Dataset } from '../data/rows.ts';
import { DataError } from '../shared/errors.ts';
import { deadlineOnly, readyWithin, type WaitLimits } from './data-wait.ts';
import type { BadSample, MachineRows } from './machine-rows.ts';

/** A step's rows, made: `indices` this machine's to stage; `n` the global batch they are part of. */
export interface FedRows {
  wait: number; // milliseconds waited for them
  indices: Uint32Array;
  n: number;
}

export interface InputFeed {
  /**
   * Makes step's rows ready, starting the next steps'; resolves to the rows to train on: this
   * machine's part of the step's batch, less those that could not be made (data.onBadSample:
   * skip); null when a stop request came while it waited (the loop stops as after a step).
   */
  ready(step: number): Promise<FedRows | null>;
  /** This machine's part of step's planned batch: what it stages ahead, before the rows are known to be made. */
  part(step: number): Uint32Array;
  /** Whether step's rows can be staged now (staging ahead skips a batch that is not). */
  canStage(step: number): boolean;
}

/**
 * `ahead`: how many steps after the current one are being made (data.prefetch); `machine`: this
 * machine's part of a batch; `onBad`: each step's samples left out, once (every machine's);
 * `limits`: how long a wait may last and what stops it (none: it waits as long as the rows take).
 */
export function inputFeed(
  ds: Dataset,
  plan: BatchPlan,
  ahead: number,
  machine: MachineRows,
  onBad: (step: number, epoch: number, bad: BadSample[]) => void = () => {},
  limits: WaitLimits | null = null,
): InputFeed {
  const pipeline = ds.pipeline;
  const part = (b: PlannedBatch) => b.indices.subarray(...machine.part(b.indices.length));
  if (!pipeline) {
    const whole = (step: number) => {
      const b = plan.batchAt(step);
      return { wait: 0, indices: part(b), n: b.indices.length };
    };
    return { ready: (step) => Promise.resolve(whole(step)), part: (step) => part(plan.batchAt(step)), canStage: () => true };
  }
  // Steps whose rows were asked for and not released: `mine`, this machine's part of the batch;
  // `kept`, once ready, the rows of it that were made and the global batch.
  const made = new Map<number, { b: PlannedBatch; mine: Uint32Array; kept: { indices: Uint32Array; n: number } | null }>();
  const ask = (step: number) => {
    if (step >= plan.totalSteps || made.has(step)) return;
    const b = plan.batchAt(step);
    const mine = part(b);
    made.set(step, { b, mine, kept: null });
    pipeline.prefetch(mine, b.epoch);
  };
  return {
    async ready(step) {
      const t = performance.now(); // a get() in this thread (map-style, no data.threads) runs as it is asked for: part of the wait
      for (let k = step; k <= step + ahead; k++) ask(k);
      const m = made.get(step)!;
      if (!limits) await pipeline.ready(m.mine, m.b.epoch);
      else if ((await readyWithin(pipeline, m.mine, m.b.epoch, limits)) === 'stopped') return null;
      const wait = performance.now() - t;
      m.kept ??= await keptRows(step, m.b, m.mine, pipeline.failed?.(m.mine, m.b.epoch) ?? [], machine, onBad);
      for (const [k, old] of made) {
        if (k >= step) continue;
        pipeline.release(old.mine, old.b.epoch);
        made.delete(k);
      }
      return { wait, ...m.kept };
    },
    part: (step) => made.get(step)?.mine ?? part(plan.batchAt(step)),
    canStage(step) {
      const m = made.get(step);
      return m !== undefined && pipeline.isReady(m.kept?.indices ?? m.mine, m.b.epoch);
    },
  };
}

/**
 * This machine's part without the rows that could not be made, and the global batch once the
 * machines agree on it; every machine's left-out samples said once to `onBad`; none left in the
 * whole batch is an error.
 */
async function keptRows(
  step: number,
  b: PlannedBatch,
  mine: Uint32Array,
  failed: { at: number; message: string }[],
  machine: MachineRows,
  onBad: (step: number, epoch: number, bad: BadSample[]) => void,
): Promise<{ indices: Uint32Array; n: number }> {
  const out = new Set(failed.map((f) => f.at));
  const indices = failed.length === 0 ? mine : mine.filter((_, at) => !out.has(at));
  const mineBad = failed.map((f) => ({ sample: mine[f.at]!, message: f.message }));
  const { n, bad } = await machine.agree(step, b.indices.length, indices.length, mineBad);
  if (bad.length > 0) onBad(step + 1, b.epoch, bad); // said 1-based, as the train line of the same batch
  if (n === 0)
    throw new DataError(
      `step ${step + 1}: none of its ${b.indices.length} samples could be made (the first: ${bad[0]!.message})`,
      'check the data: data.onBadSample: skip leaves out a bad sample, not a whole batch',
    );
  return { indices, n };
}

/**
 * An evaluation or prediction chunk's rows made ready, the next chunk's started (eval and
 * predict never augment: epoch 0); `done` releases them once the chunk is read. The wait has
 * `seconds` (reliability.stepTimeout), as a step's has.
 */
export async function chunkRows(ds: Dataset, indices: Uint32Array, next: Uint32Array | null, seconds: number): Promise<{ done: () => void }> {
  const pipeline = ds.pipeline;
  if (!pipeline) return { done: () => {} };
  pipeline.prefetch(indices, 0);
  if (next) pipeline.prefetch(next, 0);
  await readyWithin(pipeline, indices, 0, deadlineOnly(seconds));
  const bad = pipeline.failed?.(indices, 0) ?? [];
  if (bad.length > 0)
    throw new DataError(bad[0]!.message, 'data.onBadSample: skip leaves bad samples out of training only: an evaluation or a prediction covers every sample');
  return { done: () => pipeline.release(indices, 0) };
}
