// The library API's callbacks and stop requests: their types (src/api.ts exports them) and
// their error. run-hooks.ts calls them. The callbacks run on the coordinator, on MPI rank 0
// alone, at one point per step, in this order:
//
//   onStepEnd     the step's figures: the fields of a metrics.jsonl train line, over this step
//   onEvalEnd     each evaluation of the step (the metrics.jsonl eval line itself)
//   onCheckpoint  each checkpoint written (its directory)
//   onEpochEnd    when the step ended an epoch: a train line's fields over that epoch's steps
//
// A callback may ask the run to stop (return 'stop', or call run.stop()): the run ends after
// the step, with a checkpoint, like Ctrl-C. An AbortSignal does the same. A callback that throws
// fails the run with E_CALLBACK, naming it; the loop saves the last completed step first.
//
// These types are the API's: nothing here may need @types/node (or the DOM lib) in a consumer.
import { MgpuError } from '../../shared/errors.ts';
import type { EvalLine, TrainLine } from '../../shared/metrics-lines.ts';

export type CallbackName = 'onStepEnd' | 'onEvalEnd' | 'onCheckpoint' | 'onEpochEnd';

/** What a callback may return: 'stop' ends the run after this step; anything else goes on. */
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- a callback that returns nothing is the common case; void says so in the public API
export type CallbackResult = void | 'stop' | undefined | Promise<void | 'stop' | undefined>;

/** Handed to every callback. */
export interface RunControl {
  /** Ends the run after this step, with a checkpoint; `reason` is printed and logged. */
  stop(reason?: string): void;
  /** The run's directory (metrics.jsonl, checkpoints/, final/). */
  readonly runDir: string;
  /** The run's length in steps. */
  readonly totalSteps: number;
}

export interface CheckpointInfo {
  step: number; // steps completed when it was written
  epoch: number; // the epoch of the next step (0-based), as trainer-state.json says
  path: string; // the checkpoint's directory: model.json, weights.bin, trainer-state.json, ...
}

/** The train line's fields, for one step (onStepEnd) or over an epoch's steps (onEpochEnd). */
export type StepFigures = TrainLine;
export type EvalFigures = EvalLine;

export interface TrainCallbacks {
  /** After every step that was applied (not after a skipped one). */
  onStepEnd?(figures: StepFigures, run: RunControl): CallbackResult;
  /** After every evaluation, the last one (after the last step) included. */
  onEvalEnd?(figures: EvalFigures, run: RunControl): CallbackResult;
  /** After every checkpoint, the one at the end and the one a stop writes included. */
  onCheckpoint?(checkpoint: CheckpointInfo, run: RunControl): CallbackResult;
  /** After the last step of each epoch; `figures.epoch` is the epoch that ended (0-based). */
  onEpochEnd?(figures: StepFigures, run: RunControl): CallbackResult;
}

export const CALLBACK_NAMES: readonly CallbackName[] = ['onStepEnd', 'onEvalEnd', 'onCheckpoint', 'onEpochEnd'];

/**
 * The part of an AbortSignal the run reads, so that Node's, the DOM's or any compatible one
 * fits, and the API's types need neither lib.
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Why the library API stopped a run before its last step. */
export type StopRequest =
  | { by: 'abort'; reason: string } // the AbortSignal given to train()
  | { by: 'callback'; callback: CallbackName; reason: string }
  | { by: 'cluster'; reason: string }; // several machines: another one's AbortSignal or callback

/** A callback threw: the run fails with this, the callback's own error as its cause. */
export class CallbackError extends MgpuError {
  constructor(
    readonly callback: CallbackName,
    step: number,
    err: unknown,
  ) {
    const what = err instanceof Error ? err.message : String(err);
    super('E_CALLBACK', `the ${callback} callback threw after step ${step}: ${what}`, {
      hint: `fix ${callback}, or catch its errors inside it`,
      cause: err,
    });
  }
}

/** A stop request as the run prints and logs it. */
export function describeStop(s: StopRequest): string {
  if (s.by === 'abort') return `the AbortSignal (${s.reason})`;
  return s.by === 'callback' ? `${s.callback} (${s.reason})` : s.reason;
}
