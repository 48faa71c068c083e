// The input side of the training loop for rows made on demand (a RowPipeline: decoded images, a
// map-style module): before a step's batch is staged its rows are made ready, and the rows of the
// next `data.prefetch` steps are started, so the threads decode while the workers compute. The
// wait, when the threads fall behind, is the step's data_wait_ms (and `input-bound` on the
// progress line when it is more than a tenth of the step). Rows of earlier steps are released
// once a later step is ready: a step that reruns after a recovery still finds its own.
// A dataset without a pipeline (arrays in memory or mapped) is always ready and waits 0 ms.
import { performance } from 'node:perf_hooks';
import type { BatchPlan, PlannedBatch } from '../data/batch-plan.ts';
import type { Dataset } from '../data/rows.ts';

export interface InputFeed {
  /** Makes step's rows ready, starting the next steps'; resolves to the milliseconds waited. */
  ready(step: number): Promise<number>;
  /** Whether step's rows can be staged now (staging ahead skips a batch that is not). */
  canStage(step: number): boolean;
}

/** `ahead`: how many steps after the current one are being made (data.prefetch). */
export function inputFeed(ds: Dataset, plan: BatchPlan, ahead: number): InputFeed {
  const pipeline = ds.pipeline;
  if (!pipeline) return { ready: () => Promise.resolve(0), canStage: () => true };
  const made = new Map<number, PlannedBatch>(); // steps whose rows were asked for and not released
  const ask = (step: number) => {
    if (step >= plan.totalSteps || made.has(step)) return;
    const b = plan.batchAt(step);
    made.set(step, b);
    pipeline.prefetch(b.indices, b.epoch);
  };
  return {
    async ready(step) {
      for (let k = step; k <= step + ahead; k++) ask(k);
      const b = made.get(step)!;
      const t = performance.now();
      await pipeline.ready(b.indices, b.epoch);
      const waited = performance.now() - t;
      for (const [k, old] of made) {
        if (k >= step) continue;
        pipeline.release(old.indices, old.epoch);
        made.delete(k);
      }
      return waited;
    },
    canStage(step) {
      const b = made.get(step);
      return b !== undefined && pipeline.isReady(b.indices, b.epoch);
    },
  };
}

/**
 * An evaluation or prediction chunk's rows made ready, the next chunk's started (eval and
 * predict never augment: epoch 0); `done` releases them once the chunk is read.
 */
export async function chunkRows(ds: Dataset, indices: Uint32Array, next: Uint32Array | null): Promise<{ done: () => void }> {
  const pipeline = ds.pipeline;
  if (!pipeline) return { done: () => {} };
  pipeline.prefetch(indices, 0);
  if (next) pipeline.prefetch(next, 0);
  await pipeline.ready(indices, 0);
  return { done: () => pipeline.release(indices, 0) };
}
