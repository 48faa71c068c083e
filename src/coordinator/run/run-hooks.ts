// What train() holds of the library API (callbacks.ts): the callbacks, the AbortSignal and the
// first stop request. Evaluations and checkpoints are queued as they happen (saving a
// checkpoint stays synchronous) and delivered at the step's end, after the step's own figures.
import { inspect } from 'node:util';
import { MgpuError } from '../../shared/errors.ts';
import {
  CALLBACK_NAMES,
  CallbackError,
  describeStop,
  type AbortSignalLike,
  type CallbackName,
  type CallbackResult,
  type CheckpointInfo,
  type EvalFigures,
  type RunControl,
  type StepFigures,
  type StopRequest,
  type TrainCallbacks,
} from './callbacks.ts';

function abortReason(signal: AbortSignalLike): string {
  const r = signal.reason;
  if (r instanceof Error) return r.message || r.name;
  if (r === undefined) return 'aborted';
  return typeof r === 'string' ? r : inspect(r); // an object reason as itself, not [object Object]
}

type Pending = { name: 'onEvalEnd'; figures: EvalFigures; step: number } | { name: 'onCheckpoint'; figures: CheckpointInfo; step: number };

/** The callbacks are called only where `active` (MPI rank 0); stop requests count everywhere. */
export class RunHooks {
  private stopRequest: StopRequest | null = null;
  private readonly queue: Pending[] = [];
  private muted = false;
  private starting = false;
  private readonly onAbort: () => void;

  constructor(
    private readonly callbacks: TrainCallbacks,
    private readonly signal: AbortSignalLike | null,
    private readonly active: boolean,
    private readonly say: (text: string) => void,
    private readonly run: { runDir: string; totalSteps: number },
  ) {
    for (const [key, fn] of Object.entries(callbacks)) {
      if (!(CALLBACK_NAMES as readonly string[]).includes(key)) {
        throw new MgpuError('E_USAGE', `train(): unknown callback ${key}`, { hint: `the callbacks are ${CALLBACK_NAMES.join(', ')}` });
      }
      if (fn !== undefined && typeof fn !== 'function') {
        throw new MgpuError('E_USAGE', `train(): ${key} is ${typeof fn}, not a function`);
      }
    }
    this.onAbort = () => {
      if (this.stopRequest) return;
      this.say(
        `the AbortSignal was aborted (${abortReason(signal!)}): ${
          this.starting ? 'stopping the start-up; the workers that started are killed' : 'finishing this step, then writing a checkpoint'
        }`,
      );
    };
    signal?.addEventListener('abort', this.onAbort);
  }

  /** The first stop request: the AbortSignal's or a callback's. */
  requested(): StopRequest | null {
    if (!this.stopRequest && this.signal?.aborted) this.stopRequest = { by: 'abort', reason: abortReason(this.signal) };
    return this.stopRequest;
  }

  /**
   * Calls fn when the AbortSignal aborts (at once when it has); returns what takes fn off again:
   * a wait for data races a stop with it (a callback asks only at the end of a step, never inside one).
   */
  onRequested(fn: () => void): () => void {
    if (this.signal?.aborted) fn();
    else this.signal?.addEventListener('abort', fn);
    return () => this.signal?.removeEventListener('abort', fn);
  }

  /**
   * Runs the start-up with `startup` (Ctrl-C's AbortSignal) combined with the API's: either
   * stops it at once. `stoppedBy` then says whether it was the API's.
   */
  async duringStartup<T>(startup: AbortSignal, fn: (abort: AbortSignal) => Promise<T>): Promise<T> {
    this.starting = true;
    try {
      return await withApiAbort(this.signal, startup, fn, () => this.requested()!);
    } finally {
      this.starting = false;
    }
  }

  /** The stop request that ended the start-up, when `err` is the abort reason duringStartup gave. */
  stoppedBy(err: unknown): StopRequest | null {
    return startupStoppedBy(err);
  }

  /** An evaluation's line, delivered at the step's end. */
  evaluated(figures: EvalFigures): void {
    if (this.active && !this.muted && this.callbacks.onEvalEnd) this.queue.push({ name: 'onEvalEnd', figures, step: figures.step });
  }

  /** A checkpoint written, delivered at the step's end. */
  checkpointed(figures: CheckpointInfo): void {
    if (this.active && !this.muted && this.callbacks.onCheckpoint) this.queue.push({ name: 'onCheckpoint', figures, step: figures.step });
  }

  /**
   * Everything a step produced, in order: its own figures (null for a skipped step), its
   * evaluations and checkpoints, then the epoch's figures when it ended one.
   */
  async endOfStep(step: number, figures: StepFigures | null, epoch: StepFigures | null): Promise<void> {
    if (!this.active || this.muted) return;
    if (figures) await this.call('onStepEnd', figures, step);
    await this.flush();
    if (epoch) await this.call('onEpochEnd', epoch, step);
  }

  /** The evaluations and checkpoints not yet delivered (the run's end). */
  async flush(): Promise<void> {
    while (this.queue.length > 0 && !this.muted) {
      const p = this.queue.shift()!;
      await this.call(p.name, p.figures, p.step);
    }
  }

  /** No callback is called after this (the run is failing; its last checkpoint is being saved). */
  mute(): void {
    this.muted = true;
    this.queue.length = 0;
  }

  dispose(): void {
    this.signal?.removeEventListener('abort', this.onAbort);
  }

  private async call<N extends CallbackName>(name: N, figures: Parameters<NonNullable<TrainCallbacks[N]>>[0], step: number): Promise<void> {
    const fn = this.callbacks[name] as ((f: unknown, run: RunControl) => CallbackResult) | undefined;
    if (!fn || this.muted) return;
    const ask = (reason: string) => {
      this.stopRequest ??= { by: 'callback', callback: name, reason };
    };
    const control: RunControl = {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion -- a JavaScript caller may pass a non-string
      stop: (reason?: string) => ask(reason === undefined ? 'it called stop()' : String(reason)),
      runDir: this.run.runDir,
      totalSteps: this.run.totalSteps,
    };
    let result: unknown;
    try {
      // A copy: what a callback does to its figures does not reach metrics.jsonl or another callback.
      result = await fn.call(this.callbacks, structuredClone(figures), control);
    } catch (err) {
      this.mute();
      throw new CallbackError(name, step, err);
    }
    if (result === 'stop') ask("it returned 'stop'");
  }
}

/** The abort reason of a start-up stopped by the API (its AbortSignal). */
class StartupStopped extends Error {
  constructor(readonly request: StopRequest) {
    super(`stopped by ${describeStop(request)}`);
    this.name = 'StartupStopped';
  }
}

/** The API's stop request that ended a start-up, when `err` is the abort reason withApiAbort gave. */
export const startupStoppedBy = (err: unknown): StopRequest | null => (err instanceof StartupStopped ? err.request : null);

/**
 * Runs `fn` with `startup` (Ctrl-C's AbortSignal) combined with the library API's: either stops
 * it at once; an API stop's reason is a StartupStopped carrying `request()` (startupStoppedBy).
 * Before the run's hooks exist (while the data loads) the request is the AbortSignal's own.
 */
export async function withApiAbort<T>(
  signal: AbortSignalLike | null,
  startup: AbortSignal,
  fn: (abort: AbortSignal) => Promise<T>,
  request: () => StopRequest = () => ({ by: 'abort', reason: abortReason(signal!) }),
): Promise<T> {
  if (!signal) return fn(startup);
  const both = new AbortController();
  const fromSignals = () => both.abort(startup.reason);
  const fromApi = () => both.abort(new StartupStopped(request()));
  if (startup.aborted) fromSignals();
  else if (signal.aborted) fromApi();
  startup.addEventListener('abort', fromSignals, { once: true });
  signal.addEventListener('abort', fromApi);
  try {
    return await fn(both.signal);
  } finally {
    startup.removeEventListener('abort', fromSignals);
    signal.removeEventListener('abort', fromApi);
  }
}
