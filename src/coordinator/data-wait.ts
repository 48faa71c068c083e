// How long a step, or an evaluation or prediction chunk, waits for rows made on demand (a
// map-style get(), a decoding thread): waiting for data is part of the step's deadline,
// reliability.stepTimeout, as its compute is. Past it, the wait is a DataError naming the row
// waited for (the module, the sample, the split) and the seconds; a failed run keeps its
// checkpoint (train-end.ts). A stop request (a signal, the library API's AbortSignal) ends the
// wait too: the loop then stops as after any step. The wait itself is input-feed.ts's; this file bounds it.
import type { RowPipeline } from '../data/columns.ts';
import type { ReliabilityConfig } from '../config/types.ts';
import { DataError } from '../shared/errors.ts';

const MAX_TIMER_MS = 2 ** 31 - 1; // setTimeout fires at once past this

export interface WaitLimits {
  seconds: number; // reliability.stepTimeout
  /** Calls fn when the run is asked to stop, returns what takes fn off (SignalWatch.onRequested); null: only the deadline ends a wait. */
  onStop: ((fn: () => void) => () => void) | null;
}

/** The limits of a wait with no stop request to race (several machines: a stop there is agreed after a step, never inside one). */
export const deadlineOnly = (seconds: number): WaitLimits => ({ seconds, onStop: null });

/** What can ask a run to stop, each as a subscription (SignalWatch: the signals; RunHooks: the library API's AbortSignal). */
export interface StopSource {
  onRequested(fn: () => void): () => void;
}

/**
 * The training loop's limits: its signals and the API's AbortSignal end a wait on one machine;
 * on several, only the deadline does, since a machine that left its step alone would leave the
 * others waiting in it.
 */
export function loopLimits(r: ReliabilityConfig, stops: StopSource[], machines: number): WaitLimits {
  if (machines > 1) return deadlineOnly(r.stepTimeout);
  return {
    seconds: r.stepTimeout,
    onStop: (fn) => {
      const offs = stops.map((s) => s.onRequested(fn));
      return () => offs.forEach((off) => off());
    },
  };
}

/**
 * pipeline.ready(indices, epoch) within `limits`: 'ready' once the rows are, 'stopped' when a
 * stop request came first; rejects with ready()'s own error, or with a DataError past the deadline.
 */
export async function readyWithin(pipeline: RowPipeline, indices: Uint32Array, epoch: number, limits: WaitLimits): Promise<'ready' | 'stopped'> {
  let timer: NodeJS.Timeout | undefined;
  let off = () => {};
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), Math.min(limits.seconds * 1000, MAX_TIMER_MS))));
  const stopped = new Promise<'stopped'>((resolve) => (off = limits.onStop?.(() => resolve('stopped')) ?? off));
  try {
    const got = await Promise.race([pipeline.ready(indices, epoch).then(() => 'ready' as const), late, stopped]);
    if (got === 'late') throw waitedTooLong(pipeline, indices, epoch, limits.seconds);
    return got;
  } finally {
    clearTimeout(timer);
    off();
  }
}

/** The DataError of a wait past the deadline: the first row still being made, and for how long it was waited for. */
function waitedTooLong(pipeline: RowPipeline, indices: Uint32Array, epoch: number, seconds: number): DataError {
  const what = pipeline.unsettled?.(indices, epoch) ?? `one of ${indices.length} rows (${pipeline.describe()})`;
  const why = pipeline.unsettled
    ? 'a get() must resolve or reject: look for a Promise it never settles (a callback never called, a stream never ended, a lock never released)'
    : 'the threads making the rows did not come back';
  return new DataError(
    `${what} has not settled after ${seconds} s (reliability.stepTimeout: waiting for data is part of the step's deadline)`,
    `${why}; if making a batch really takes that long, raise reliability.stepTimeout`,
  );
}
