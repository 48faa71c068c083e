// Several machines: the gradient allreduce overlapped with the machine's own sum, in fused chunks
// (Horovod's tensor fusion, DDP's buckets). The trainable vector is cut into chunks of
// MGPU_ALLREDUCE_CHUNK floats; as soon as chunk k holds this machine's sum, its allreduce is
// started, and chunk k+1 is summed while chunk k crosses the network. Each chunk's allreduce is
// one MPI_Iallreduce (in place, MPI_SUM), posted in chunk order on every machine (MPI matches
// collectives by order) and polled from the event loop as every collective is (cluster.ts).
//
// The bits: every element is summed over the machines by one allreduce, as before; with two
// machines that is one addition, a + b, the same whichever rank adds it. For more, Open MPI's
// non-blocking allreduce (coll/libnbc, not coll/tuned) picks, for an in-place MPI_SUM, its
// binomial tree whatever the size, whose order of additions depends only on the number of
// machines: a chunk gives each element the bits the whole vector gave it (docs/performance.md).
import { MgpuError } from '../../shared/errors.ts';
import type { Cluster } from '../devices/cluster.ts';

/** Floats per chunk by default: 1 MiB (docs/performance.md says why). */
export const DEFAULT_CHUNK = 1 << 18;
/** At most this many chunks in flight (the binding holds 256 operations). */
const MAX_IN_FLIGHT = 64;

/** What the overlap needs from the cluster, for one step. */
export interface Combine {
  chunk: number; // floats per chunk; 0: one allreduce of the whole sum once it is complete
  /** Once, before the first chunk's allreduce is started (it may run while chunk 0 is summed). */
  ready(): Promise<void>;
  /** Starts one chunk's allreduce (synchronously: the call posts it) and resolves when it is done. */
  sum(part: Float32Array): Promise<void>;
}

/** MGPU_ALLREDUCE_CHUNK: floats per chunk (0: no overlap); unset: DEFAULT_CHUNK. */
export function allreduceChunk(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.MGPU_ALLREDUCE_CHUNK;
  if (v === undefined || v === '') return DEFAULT_CHUNK;
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)) || Number(v) > 2 ** 31 - 1) {
    throw new MgpuError(
      'E_CONFIG',
      `MGPU_ALLREDUCE_CHUNK=${v}: expected a whole number of floats per chunk of the gradient allreduce (0 turns the overlap off)`,
      {
        hint: `unset it for the default (${DEFAULT_CHUNK} floats, 1 MiB)`,
      },
    );
  }
  return Number(v);
}

/**
 * The step's Combine over the cluster: the first step checks that every machine cuts the
 * gradient into the same chunks (else their allreduces would not match), then each step tells
 * rank 0 this machine has finished its local part before the first chunk crosses.
 */
export function gradientCombine(c: Cluster, step: number, chunk = allreduceChunk()): Combine {
  return {
    chunk,
    ready: async () => {
      await agreeOnChunk(c, chunk);
      await c.arrive(step, 1); // again before the big one: a machine that stalls in between is named too
    },
    sum: (part) => c.sum(part, `step ${step}: the gradient allreduce`),
  };
}

const agreed = new WeakSet<Cluster>();
async function agreeOnChunk(c: Cluster, chunk: number): Promise<void> {
  if (agreed.has(c)) return;
  const mine = new Uint8Array(4);
  new DataView(mine.buffer).setUint32(0, chunk, true);
  const all = (await c.gather(mine, 'the check of the allreduce chunk size')).map((b) => new DataView(b.buffer, b.byteOffset).getUint32(0, true));
  const r = all.findIndex((x) => x !== all[0]);
  if (r >= 0) {
    throw new MgpuError(
      'E_CONFIG',
      `${c.where(r)} cuts the gradient allreduce into chunks of ${all[r]} floats, ${c.where(0)} into ${all[0]} (MGPU_ALLREDUCE_CHUNK)`,
      {
        hint: 'set the same MGPU_ALLREDUCE_CHUNK on every machine (Open MPI: mpirun -x MGPU_ALLREDUCE_CHUNK), or leave it unset everywhere',
      },
    );
  }
  agreed.add(c);
}

/**
 * Sums gradSum chunk by chunk with `sumRange(start, end)` and starts each chunk's allreduce as
 * soon as it is summed; resolves once every chunk holds the sum over all machines.
 */
export async function overlappedAllreduce(gradSum: Float32Array, sumRange: (start: number, end: number) => Promise<unknown>, combine: Combine): Promise<void> {
  const n = gradSum.length;
  const size = combine.chunk > 0 ? combine.chunk : Math.max(1, n);
  const ready = combine.ready();
  ready.catch(() => {}); // awaited below; a failure while chunk 0 is summed is not unhandled
  const inFlight: Array<Promise<void>> = [];
  let oldest = 0;
  for (let start = 0; start === 0 || start < n; start += size) {
    const end = Math.min(n, start + size);
    await sumRange(start, end);
    if (start === 0) await ready;
    const done = combine.sum(gradSum.subarray(start, end));
    done.catch(() => {}); // awaited below, in order
    inFlight.push(done);
    if (inFlight.length - oldest >= MAX_IN_FLIGHT) await inFlight[oldest++];
    // The pollers of the chunks in flight run here, also when sumRange ran on this thread.
    await new Promise((resolve) => setImmediate(resolve));
  }
  for (; oldest < inFlight.length; oldest++) await inFlight[oldest];
}
