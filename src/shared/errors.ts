// Every failure a user can cause or meet is one of these: a stable code to grep for, a message
// that says what is wrong and where (key path, file, rank), and a hint that says what to do.
// Exit codes say whose the fix is: 2 for usage, config and input errors (a flag, a key, a data
// file, a module of the user's), whether met before the first step or while the run trains (the
// steps trained before it are then kept: isResumable); 1 for failures of the run itself.

export type ErrorCode =
  | 'E_CONFIG' // a config key is unknown, missing, of the wrong type or out of range
  | 'E_USAGE' // a command-line flag is wrong
  | 'E_DATA' // a data file is missing, malformed, or does not fit the model
  | 'E_MODEL' // the model module or model.json cannot give a LayersModel
  | 'E_METRIC' // a custom metric module fails to load, throws, or returns something that is not named sums / values
  | 'E_LOSS' // a custom loss module fails to load, throws, or returns something that is not a loss per sample
  | 'E_DEVICES' // a GPU id does not exist, or more workers than GPUs
  | 'E_SHM' // the shared-memory directory is missing or too small
  | 'E_BACKEND' // the requested tfjs backend is not installed or fails to start
  | 'E_LAYOUT' // workers disagree on the variable layout
  | 'E_WORKER' // a worker failed during a phase
  | 'E_NONFINITE' // a loss or gradient became NaN or infinite
  | 'E_IO' // a file the run reads or writes failed at the system level (permissions, space, a directory in the way)
  | 'E_CALLBACK' // a callback given to the library API's train() threw
  | 'E_CHECKPOINT' // a saved model or checkpoint file is missing, of the wrong size or fails its CRC-32C
  | 'E_RUN_EXISTS' // a new run into a run directory that holds another run's files
  | 'E_RUN_LOCKED' // another run is running in the run directory (its .lock)
  | 'E_RESUME' // --resume cannot continue its checkpoint on the data given: a split's sample count, or a file it was trained on, changed
  | 'E_INTERNAL';

/**
 * Failures after which a run keeps what it trained: the last completed step goes into a
 * checkpoint, and the message says how to continue. A custom metric that fails in an evaluation
 * (E_METRIC) or a callback that throws (E_CALLBACK) is the user's to fix, but the steps trained
 * before it are kept all the same.
 */
export const RESUMABLE_CODES: readonly ErrorCode[] = ['E_WORKER', 'E_NONFINITE', 'E_METRIC', 'E_CALLBACK'];

/**
 * Whether a run that fails with `err` after `trained` steps of its own checkpoints the last one
 * first: after RESUMABLE_CODES, and after a data error (E_DATA) met while the run trains (a
 * mapped file's NaN row, an image that stops decoding, a batch with no sample left), whose
 * steps are kept as well. Its exit code stays the error's own (2 for a data error: the data is
 * the user's to fix, as a custom metric that fails at an evaluation is). A run that trained no
 * step has nothing to keep: no checkpoint, and no `--resume` offered (it would start where the
 * failed run did, to fail the same way when the failure is deterministic).
 */
export function isResumable(err: unknown, trained: number): err is MgpuError {
  return err instanceof MgpuError && trained > 0 && (RESUMABLE_CODES.includes(err.code) || err.code === 'E_DATA');
}

export class MgpuError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly exitCode: number;
  constructor(code: ErrorCode, message: string, opts: { hint?: string; exitCode?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'MgpuError';
    this.code = code;
    this.hint = opts.hint;
    this.exitCode = opts.exitCode ?? (code === 'E_WORKER' || code === 'E_INTERNAL' || code === 'E_NONFINITE' || code === 'E_CALLBACK' ? 1 : 2);
  }
}

/** A config error always names its key path, e.g. `optimizer.learningRate`. */
export class ConfigError extends MgpuError {
  readonly keyPath: string;
  constructor(keyPath: string, message: string, hint?: string) {
    super('E_CONFIG', keyPath ? `${keyPath}: ${message}` : message, { hint });
    this.keyPath = keyPath;
  }
}

/** An input error (exit 2): a data file missing, malformed or not fitting the model, whenever it is met. */
export class DataError extends MgpuError {
  constructor(message: string, hint?: string) {
    super('E_DATA', message, { hint });
  }
}

/** A worker failure names the rank, its GPU and the phase it was in. */
export class WorkerError extends MgpuError {
  readonly rank: number;
  readonly phase: string;
  readonly reason: string; // what went wrong, without the rank, GPU and phase
  constructor(rank: number, gpu: string, phase: string, message: string, opts: { hint?: string; stack?: string; exitCode?: number } = {}) {
    super('E_WORKER', `worker rank ${rank} (GPU ${gpu}) failed in ${phase}: ${message}`, { hint: opts.hint, exitCode: opts.exitCode });
    this.rank = rank;
    this.phase = phase;
    this.reason = message;
    if (opts.stack) this.stack = opts.stack;
  }
}

/** The message of whatever was thrown: an Error's (or any object's string `message`), else its String() form. */
export function messageOf(err: unknown): string {
  if (typeof err === 'object' && err !== null && 'message' in err && typeof err.message === 'string') return err.message;
  return String(err);
}

export function formatError(err: unknown): string {
  if (err instanceof MgpuError) {
    return `error ${err.code}: ${err.message}` + (err.hint ? `\n  hint: ${err.hint}` : '');
  }
  // A system error names the call and the path; its stack would only show mgpu-train's internals.
  const sys = err as NodeJS.ErrnoException | null | undefined;
  if (typeof sys?.code === 'string' && typeof sys.syscall === 'string') {
    return `error E_IO: ${sys.message}\n  hint: check that path: its permissions, the free space, and that nothing else is in the way`;
  }
  const e = err as Error | null | undefined;
  return `error E_INTERNAL: ${e?.stack ?? String(err)}`;
}
