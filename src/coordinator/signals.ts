// Ctrl-C and SIGTERM: the first one lets the current step finish, writes a checkpoint and stops
// the workers; a second Ctrl-C stops at once. During start-up (workers spawning and loading) the
// first one stops at once: no worker is spawned after it, and those that started are killed.
// Exit status is 128 + the signal's number, as a shell expects (130 for SIGINT, 143 for SIGTERM).
import os from 'node:os';

/** Start-up was stopped by a signal: the reason of the start-up's AbortSignal. */
export class Interrupted extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`stopped by ${signal}`);
    this.name = 'Interrupted';
  }
}

export interface SignalWatch {
  /** The signal that asked the run to stop, if any. */
  requested(): NodeJS.Signals | null;
  /** What a second Ctrl-C does before the process exits (kill the workers). */
  onStopNow(fn: () => void): void;
  /**
   * Runs start-up with an AbortSignal that the first signal aborts, with an Interrupted as its
   * reason (at once when one came before).
   */
  duringStartup<T>(fn: (abort: AbortSignal) => Promise<T>): Promise<T>;
  dispose(): void;
}

/** For runs nobody can interrupt (tests, the library API without signals). */
export const noSignals: SignalWatch = {
  requested: () => null,
  onStopNow: () => {},
  duringStartup: (fn) => fn(new AbortController().signal),
  dispose: () => {},
};

export const exitCodeFor = (signal: NodeJS.Signals): number => 128 + ((os.constants.signals[signal] as number | undefined) ?? 0); // a name this platform lacks

export function watchSignals(say: (text: string) => void): SignalWatch {
  let first: NodeJS.Signals | null = null;
  let stopNow = () => {};
  let startup: AbortController | null = null;
  const on = (signal: NodeJS.Signals) => {
    if (first === null) {
      first = signal;
      if (startup) {
        say(`${signal}: stopping the start-up; the workers that started are killed`);
        startup.abort(new Interrupted(signal));
        return;
      }
      say(`${signal}: finishing this step, then writing a checkpoint (press Ctrl-C again to stop at once)`);
      return;
    }
    say(`${signal} again: stopping now`);
    stopNow();
    process.exit(exitCodeFor(first));
  };
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
  return {
    requested: () => first,
    onStopNow(fn) {
      stopNow = fn;
    },
    async duringStartup(fn) {
      const c = new AbortController();
      if (first !== null) c.abort(new Interrupted(first));
      startup = c;
      try {
        return await fn(c.signal);
      } finally {
        startup = null;
      }
    },
    dispose() {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
    },
  };
}
