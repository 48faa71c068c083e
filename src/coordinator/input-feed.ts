// The input side of the training loop for rows made on demand (a RowPipeline: decoded images, a
// map-style module): before a step's batch is staged its rows are made ready, and the rows of the
// next `data.prefetch` steps are started, so the threads decode while the workers compute. The
// wait, when the threads fall behind, is the step's data_wait_ms (and `input-bound` on the
// progress line when it is more than a tenth of the step). Rows of earlier steps are released
// once a later step is ready: a step that reruns after a recovery still finds its own.
// The wait is bounded (data-wait.ts): past reliability.stepTimeout it is a DataError naming the
// sample waited for; a stop request (a signal) ends it, and ready() then gives no batch.
// A dataset without a pipeline (arrays in memory or mapped) is always ready and waits 0 ms.
import { performance } from 'node:perf_hooks';
import type { BatchPlan, PlannedBatch } from '../data/batch-plan.ts';
import type { Dataset } from '../data/rows.ts';
import { DataError } from '../shared/errors.ts';
import { deadlineOnly, readyWithin, type WaitLimits } from './data-wait.ts';

export interface InputFeed {
  /**
   * Makes step's rows ready, starting the next steps'; resolves to the milliseconds waited and
   * the rows to train on: the step's own, less those that could not be made (data.onBadSample: skip);
   * null when a stop request came while it waited (the loop stops as after a step).
   */
  ready(step: number): Promise<{ wait: number; indices: Uint32Array } | null>;
  /** Whether step's rows can be staged now (staging ahead skips a batch that is not). */
  canStage(step: number): boolean;
}

/** A sample left out of a step's batch, and why (its file, what the decoder said). */
export interface BadSample {
  sample: number;
  message: string;
}

/**
 * `ahead`: how many steps after the current one are being made (data.prefetch); `onBad`: each
 * step's samples left out, once; `limits`: how long a wait may last and what stops it (none: it
 * waits as long as the rows take).
 */
export function inputFeed(
  ds: Dataset,
  plan: BatchPlan,
  ahead: number,
  onBad: (step: number, epoch: number, bad: BadSample[]) => void = () => {},
  limits: WaitLimits | null = null,
): InputFeed {
  const pipeline = ds.pipeline;
  if (!pipeline) return { ready: (step) => Promise.resolve({ wait: 0, indices: plan.batchAt(step).indices }), canStage: () => true };
  // Steps whose rows were asked for and not released; `kept`: once ready, the rows that were made.
  const made = new Map<number, { b: PlannedBatch; kept: Uint32Array | null }>();
  const ask = (step: number) => {
    if (step >= plan.totalSteps || made.has(step)) return;
    const b = plan.batchAt(step);
    made.set(step, { b, kept: null });
    pipeline.prefetch(b.indices, b.epoch);
  };
  return {
    async ready(step) {
      const t = performance.now(); // a get() in this thread (map-style, no data.threads) runs as it is asked for: part of the wait
      for (let k = step; k <= step + ahead; k++) ask(k);
      const m = made.get(step)!;
      if (!limits) await pipeline.ready(m.b.indices, m.b.epoch);
      else if ((await readyWithin(pipeline, m.b.indices, m.b.epoch, limits)) === 'stopped') return null;
      const wait = performance.now() - t;
      m.kept ??= keptRows(step, m.b, pipeline.failed?.(m.b.indices, m.b.epoch) ?? [], onBad);
      for (const [k, old] of made) {
        if (k >= step) continue;
        pipeline.release(old.b.indices, old.b.epoch);
        made.delete(k);
      }
      return { wait, indices: m.kept };
    },
    canStage(step) {
      const m = made.get(step);
      return m !== undefined && pipeline.isReady(m.kept ?? m.b.indices, m.b.epoch);
    },
  };
}

/** The batch without the rows that could not be made, said once to `onBad`; none left is an error. */
function keptRows(
  step: number,
  b: PlannedBatch,
  failed: { at: number; message: string }[],
  onBad: (step: number, epoch: number, bad: BadSample[]) => void,
): Uint32Array {
  if (failed.length === 0) return b.indices;
  onBad(
    step + 1, // said 1-based, as the train line of the same batch
    b.epoch,
    failed.map((f) => ({ sample: b.indices[f.at]!, message: f.message })),
  );
  const out = new Set(failed.map((f) => f.at));
  const kept = b.indices.filter((_, at) => !out.has(at));
  if (kept.length === 0)
    throw new DataError(
      `step ${step + 1}: none of its ${b.indices.length} samples could be made (the first: ${failed[0]!.message})`,
      'check the data: data.onBadSample: skip leaves out a bad sample, not a whole batch',
    );
  return kept;
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
