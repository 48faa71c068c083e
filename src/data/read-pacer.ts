// Reading a data module in the coordinator without holding it hostage: every few milliseconds
// the event loop gets a turn (signals, timers), which a sync generator would never give, and
// an abort (Ctrl-C during start-up) ends any wait on the module at once with its reason.
import { performance } from 'node:perf_hooks';

/** How long reading runs before it lets the event loop handle signals and timers. */
const YIELD_MS = 20;

/**
 * Awaits what the module gives, but no longer than `abort` allows: an abort rejects with its
 * reason at once. Every YIELD_MS, `pace()` lets the event loop run (a sync generator never would).
 */
export function pacer(abort: AbortSignal | null) {
  let since = performance.now();
  return {
    async until<T>(value: Promise<T> | T): Promise<T> {
      if (!abort) return value;
      abort.throwIfAborted();
      let onAbort = () => {};
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(abort.reason as Error);
        abort.addEventListener('abort', onAbort, { once: true });
      });
      try {
        return await Promise.race([value, aborted]);
      } finally {
        abort.removeEventListener('abort', onAbort);
      }
    },
    async pace(): Promise<void> {
      if (performance.now() - since < YIELD_MS) return;
      await new Promise((resolve) => setImmediate(resolve));
      since = performance.now();
      abort?.throwIfAborted();
    },
  };
}
