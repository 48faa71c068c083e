// What train() returns, built in one place: each way a run ends (not started, already finished,
// stopped, failed, ended) gives only the fields in which it differs from a run that did nothing.
import type { StopRequest } from './run/callbacks.ts';
import type { StopRecord } from './run/trainer-state.ts';
import type { EvalResult } from './engine/eval-result.ts';

export interface TrainResult {
  runDir: string;
  modelPath: string | null; // null when the run was interrupted before its end
  steps: number; // steps completed
  finalLoss: number;
  eval: EvalResult | null;
  weights: Float32Array; // the final master weights, flat (trainable first)
  ema: Float32Array | null;
  interrupted: NodeJS.Signals | null;
  /** Stopped by the library API on this machine: its AbortSignal, or a callback that asked. */
  stopRequest: StopRequest | null;
  skippedSteps: number[];
  restarts: number;
  /** A resume of a run that had already run all its steps: nothing was started or written. */
  alreadyFinished: boolean;
  /** Early stopping ended the run before its last step (training.earlyStopping). */
  stopped: StopRecord | null;
  /** checkpoint.best: the step whose weights runs/<name>/best/ holds, and its monitored value. */
  best: { step: number; value: number; monitor: string } | null;
  /** training.earlyStopping.restoreBest: the step whose weights final/ (and `weights`) hold. */
  restoredFrom: number | null;
}

/** The result of a run in `runDir`: a run that trained nothing, but for the fields given. */
export function trainResult(runDir: string, fields: Partial<Omit<TrainResult, 'runDir'>>): TrainResult {
  return {
    runDir,
    modelPath: null,
    steps: 0,
    finalLoss: NaN,
    eval: null,
    weights: new Float32Array(0),
    ema: null,
    interrupted: null,
    stopRequest: null,
    skippedSteps: [],
    restarts: 0,
    alreadyFinished: false,
    stopped: null,
    best: null,
    restoredFrom: null,
    ...fields,
  };
}

/** The best checkpoint's step and value, as a result or a checkpoint's monitor state holds it (null before one). */
export function bestOf(b: { step: number | null; best: number | string; monitor: string } | null | undefined): TrainResult['best'] {
  return b && b.step !== null ? { step: b.step, value: Number(b.best), monitor: b.monitor } : null;
}
