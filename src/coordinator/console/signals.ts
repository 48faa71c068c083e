// Ctrl-C, SIGTERM and SIGHUP (the terminal or SSH session went away): the first one lets the
// current step finish (a step still waiting for its data does not start: input-feed.ts), writes a
// checkpoint and stops the workers; a second one stops at once.
// During start-up (data modules loading, workers spawning and loading) the first one stops at
// once: no worker is spawned after it, and those that started are killed. Exit status is 128 +
// the signal's number, as a shell expects (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).
import os from 'node:os';

/** The signals that stop a run, each as Ctrl-C does. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

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
  /** Calls fn at the first signal (at once when one came); returns what takes fn off again: a wait races a stop with it. */
  onRequested(fn: () => void): () => void;
  /** What a second Ctrl-C does before the process exits (kill the workers). */
  onStopNow(fn: () => void): void;
  /**
   * Runs start-up with an AbortSignal that the first signal aborts, with an Interrupted as its
   * reason (at once when one came before); `killed` says what the signal stops (default: the
   * workers that started are killed).
   */
  duringStartup<T>(fn: (abort: AbortSignal) => Promise<T>, killed?: string): Promise<T>;
  dispose(): void;
}

/** For runs nobody can interrupt (tests, the library API without signals). */
export const noSignals: SignalWatch = {
  requested: () => null,
  onRequested: () => () => {},
  onStopNow: () => {},
  duringStartup: (fn) => fn(new AbortController().signal),
  dispose: () => {},
};

export const exitCodeFor = (signal: NodeJS.Signals): number => 128 + ((os.constants.signals[signal] as number | undefined) ?? 0); // a name this platform lacks

/** `say(text, lasting)`: lasting lines are kept even when stdout is closed (progress.ts). */
export function watchSignals(say: (text: string, lasting?: boolean) => void): SignalWatch {
  let first: NodeJS.Signals | null = null;
  let stopNow = () => {};
  let startup: { c: AbortController; killed: string } | null = null;
  const waiting = new Set<() => void>();
  const on = (signal: NodeJS.Signals) => {
    if (first === null) {
      first = signal;
      if (startup) {
        say(`${signal}: stopping the start-up; ${startup.killed}`);
        startup.c.abort(new Interrupted(signal));
        return;
      }
      // After a hang-up nobody is at the terminal to press Ctrl-C: name the signal to send again.
      const again = signal === 'SIGINT' ? 'press Ctrl-C again' : `send ${signal} again (kill -${signal.slice(3)} ${process.pid})`;
      say(`${signal}: finishing this step, then writing a checkpoint (${again} to stop at once)`, true);
      for (const fn of waiting) fn(); // a step still waiting for its data stops there
      return;
    }
    say(`${signal} again: stopping now`);
    stopNow();
    process.exit(exitCodeFor(first));
  };
  for (const sig of STOP_SIGNALS) process.on(sig, on);
  return {
    requested: () => first,
    onRequested(fn) {
      if (first !== null) fn();
      else waiting.add(fn);
      return () => waiting.delete(fn);
    },
    onStopNow(fn) {
      stopNow = fn;
    },
    async duringStartup(fn, killed = 'the workers that started are killed') {
      const c = new AbortController();
      if (first !== null) c.abort(new Interrupted(first));
      startup = { c, killed };
      try {
        return await fn(c.signal);
      } finally {
        startup = null;
      }
    },
    dispose() {
      for (const sig of STOP_SIGNALS) process.off(sig, on);
    },
  };
}
