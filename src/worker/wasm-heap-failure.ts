// The wasm backend keeps every tensor in one WebAssembly linear memory, which one process can grow
// to 4 GB at most. A step that needs more stops with an error that names nothing a user can act
// on: a bare trap ("memory access out of bounds", "Aborted()", "table index is out of bounds")
// once the heap is nearly full, or "Invalid typed array length" where one tensor alone does not
// fit (its allocation failed, and its view over the heap cannot be made). Either is said here as
// what it is: the heap's size, the samples the worker computed at once, and what lowers them
// without changing the model (training.accumulateSteps: each shard in micro-batches, the same sums).
import type { TF } from './backend.ts';

/** The heap's limit: 65536 pages of 64 KiB, what a 32-bit wasm address reaches. */
export const WASM_HEAP_LIMIT = 4 * 1024 ** 3;

/**
 * From this heap size on, a trap is taken for an allocation that did not fit: a malloc that cannot
 * grow the heap returns null, and the kernel's writes through it run past the heap's end (seen:
 * "memory access out of bounds" at 2.6 GB, with 1.6 GB more asked). Below it, a kernel's own bug
 * is as likely, and the message says so.
 */
const LARGE_HEAP = 1024 ** 3;

export interface HeapFailure {
  message: string;
  hint: string;
}

export interface ShardNow {
  samples: number; // the worker's rows of the step
  micro: number; // in this many micro-batches
}

const gb = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GB`;

/** What to say of `err`, thrown on `tf`'s wasm backend (in a step of `shard`): null when it is not a heap failure. */
export function wasmHeapFailure(tf: TF, err: unknown, shard: ShardNow | null): HeapFailure | null {
  if (!(err instanceof Error)) return null;
  return heapFailure(err, (tf.backend() as unknown as { wasm: { HEAPU8: Uint8Array } }).wasm.HEAPU8.length, shard);
}

/**
 * What to say of `err`, met with the heap `heapBytes` long while the worker computed `shard`:
 * null when it is neither a WebAssembly trap (WebAssembly.RuntimeError, which the project's type
 * libraries do not declare) nor a view too long for the heap.
 */
export function heapFailure(err: Error, heapBytes: number, shard: ShardNow | null): HeapFailure | null {
  const said = err.message.split('. Build with')[0]!;
  const rows = shard
    ? `, computing ${Math.ceil(shard.samples / shard.micro)} samples at once (a shard of ${shard.samples} in ${shard.micro} micro-batch${shard.micro === 1 ? '' : 'es'})`
    : '';
  const view = err instanceof RangeError ? /^Invalid typed array length: (\d+)$/.exec(err.message) : null;
  const trap = err.constructor.name === 'RuntimeError';
  if (!view && !trap) return null;
  const tensorBytes = view ? 4 * Number(view[1]) : 0; // the views made over the heap are of float32 (or int32) tensors
  if (heapBytes + tensorBytes < LARGE_HEAP) {
    return {
      message: `the wasm backend failed (${said}) with its heap at ${gb(heapBytes)}, far from its 4 GB${rows}`,
      hint: 'this is not the heap running out: run again with the cpu backend (devices.backend: cpu) to see whether a wasm kernel is at fault, and report it with the model',
    };
  }
  const what = view
    ? `ran out of memory (one wasm process addresses 4 GB at most): a tensor of ${gb(tensorBytes)} does not fit beside the ${gb(heapBytes)} in use`
    : `stopped with its heap at ${gb(heapBytes)}: most likely an allocation that did not fit in the 4 GB one wasm process addresses`;
  return {
    message: `the wasm backend ${what}${rows} (${said})`,
    hint: 'compute fewer samples at once in each worker: raise training.accumulateSteps (each shard in micro-batches: the same gradients, a fraction of the memory), add workers, or lower training.batchSize or the input size',
  };
}
