// Why the plain baseline has no figures, said so that a user can act on it. On wasm, one process
// addresses a 4 GB heap at most, and a large network at a large batch (vgg16 at 224x224) runs
// past it with a bare "Aborted()" trap: said as memory (src/worker/wasm-heap-failure.ts tells a
// heap failure from a kernel's own trap), with what the benchmark's flags change. The baseline's
// failure does not stop the benchmark: the workers are timed without it.
import { heapFailure } from '../worker/wasm-heap-failure.ts';

/** What to say of `err`, thrown in the baseline at `batch` samples a step; `wasmHeapBytes`: the wasm heap's size then, null on another backend. */
export function plainFailure(err: Error, wasmHeapBytes: number | null, batch: number): string {
  const heap = wasmHeapBytes === null ? null : heapFailure(err, wasmHeapBytes, null);
  if (heap === null) return `plain tfjs failed: ${err.message}`;
  if (!/ran out of memory|did not fit/.test(heap.message)) return `${heap.message}; ${heap.hint}`;
  return (
    `${heap.message}; the baseline computes one batch of ${batch} samples at once in one process: time it with a smaller --batch, ` +
    'or on another --backend (tfjs-node or cpu, whose memory is not capped at 4 GB); the workers are timed without it'
  );
}

/** What to say of a baseline process that ended without a word: killed by a signal, or its exit and the last lines of its stderr. */
export function plainEnded(code: number | null, signal: NodeJS.Signals | null, stderr: string): string {
  if (signal === 'SIGKILL')
    return `the plain tfjs process was killed (${signal}) before it gave figures: most likely out of memory (the kernel kills the largest process); time it with a smaller --batch`;
  if (signal !== null) return `the plain tfjs process was stopped by ${signal} before it gave figures`;
  return `the plain tfjs process ended (exit ${code}) without figures: ${stderr.trim().split('\n').slice(-3).join(' / ')}`;
}
