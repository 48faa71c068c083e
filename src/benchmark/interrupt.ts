// Ctrl-C, SIGTERM or SIGHUP during `mgpu-train benchmark`: the figures measured so far are kept.
// The first signal stops the worker count being measured (at once during its start-up, else
// after the step in progress, as `train` stops), and is forwarded to the plain baseline's
// process, which is killed if it is still there GRACE_MS later; then the benchmark prints and
// writes what it has, marked partial, removes its scratch folders and exits 128 + the signal's
// number. A second signal, or a stop that takes longer than GRACE_MS, kills every child at once
// and does the same straight away: nothing is left running, whatever a step costs.
import type { ChildProcess } from 'node:child_process';
import { exitCodeFor, Interrupted, STOP_SIGNALS, type SignalWatch } from '../coordinator/console/signals.ts';

/** How long the children get to stop after the first signal before they are killed. */
export const GRACE_MS = 5000;

export interface BenchmarkSignals extends SignalWatch {
  /** A child process (the plain baseline) to forward the signal to; returns what forgets it. */
  watchChild(child: ChildProcess): () => void;
  /** What runs before the process exits at a second signal or after the grace period: print and write what was measured, remove the scratch folders. */
  onGiveUp(fn: (signal: NodeJS.Signals) => void): void;
}

const running = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;

export function benchmarkSignals(say: (text: string) => void): BenchmarkSignals {
  let first: NodeJS.Signals | null = null;
  let stopNow = () => {};
  let giveUp: (signal: NodeJS.Signals) => void = () => {};
  let startup: AbortController | null = null;
  const waiting = new Set<() => void>();
  const children = new Set<ChildProcess>();
  const timers: NodeJS.Timeout[] = [];
  const now = (signal: NodeJS.Signals) => {
    stopNow(); // the workers of the count being measured (SIGKILL)
    for (const c of children) if (running(c)) c.kill('SIGKILL');
    try {
      giveUp(signal);
    } finally {
      process.exit(exitCodeFor(signal));
    }
  };
  const on = (signal: NodeJS.Signals) => {
    if (first !== null) {
      say(`${signal} again: stopping now`);
      now(first);
      return;
    }
    first = signal;
    const again = signal === 'SIGINT' ? 'press Ctrl-C again' : `send ${signal} again`;
    say(`${signal}: stopping the benchmark; the figures measured so far are kept (${again} to stop at once)`);
    startup?.abort(new Interrupted(signal));
    for (const fn of waiting) fn();
    for (const c of children) if (running(c)) c.kill(signal);
    const late = setTimeout(() => {
      say(`${signal}: not stopped after ${GRACE_MS / 1000} s: stopping now`);
      now(signal);
    }, GRACE_MS);
    late.unref(); // the benchmark that ends in time does not wait for it
    timers.push(late);
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
    watchChild(child) {
      children.add(child);
      if (first !== null) child.kill(first);
      return () => children.delete(child);
    },
    onGiveUp(fn) {
      giveUp = fn;
    },
    dispose() {
      for (const sig of STOP_SIGNALS) process.off(sig, on);
      for (const t of timers) clearTimeout(t);
    },
  };
}
