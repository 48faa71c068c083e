// Ctrl-C and SIGTERM: the first one lets the current step finish, writes a checkpoint and stops
// the workers; a second Ctrl-C stops at once. Exit status is 128 + the signal's number, as a
// shell expects (130 for SIGINT, 143 for SIGTERM).
import os from 'node:os';

export interface SignalWatch {
  /** The signal that asked the run to stop, if any. */
  requested(): NodeJS.Signals | null;
  /** What a second Ctrl-C does before the process exits (kill the workers). */
  onStopNow(fn: () => void): void;
  dispose(): void;
}

export const exitCodeFor = (signal: NodeJS.Signals): number => 128 + (os.constants.signals[signal] ?? 0);

export function watchSignals(say: (text: string) => void): SignalWatch {
  let first: NodeJS.Signals | null = null;
  let stopNow = () => {};
  const on = (signal: NodeJS.Signals) => {
    if (first === null) {
      first = signal;
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
    dispose() {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
    },
  };
}
