// Which rows of a step's batch this machine makes (decodes, reads from shards, asks a data
// module for) and stages: on several machines, only its own workers' part. The planned batch
// (batch-plan.ts) is split over every machine's workers as shard.ts splits it; a machine's
// workers are consecutive global ranks, so its part is one range of the batch, and it makes only
// that. With data.onBadSample: skip a machine leaves its own bad samples out of its part and
// splits the rest over its workers; the machines then add up how many rows each kept (the
// global batch every worker's loss and gradient are divided by) and send their bad samples to
// rank 0, which lists them in metrics.jsonl. So the samples left out, and the mean the step
// trains on, are those of one machine with every worker; which worker computes which row
// differs when a sample is left out (as it differs with N), never which rows are trained on.
// On one machine the part is the whole batch and nothing is exchanged.
import type { Cluster } from './devices/cluster.ts';
import { MgpuError } from '../shared/errors.ts';
import { shardRanges } from '../shared/shard.ts';

/** A sample left out of a step's batch, and why (its file, what the decoder said). */
export interface BadSample {
  sample: number;
  message: string;
}

export interface MachineRows {
  /** This machine's part [start, end) of a planned batch of `batch` rows. */
  part(batch: number): [number, number];
  /**
   * After the step's rows are made: `planned` rows in the batch, `kept` of this machine's part
   * (its bad ones left out). Resolves to the global batch trained on and every machine's bad
   * samples, in batch order.
   */
  agree(step: number, planned: number, kept: number, bad: BadSample[]): Promise<{ n: number; bad: BadSample[] }>;
}

/** One machine: its part is the whole batch, and what it kept is the batch. */
export const ONE_MACHINE: MachineRows = { part: (batch) => [0, batch], agree: async (_s, _p, kept, bad) => ({ n: kept, bad }) };

/** `exchange`: whether a machine can leave samples out (data.onBadSample: skip with rows made on demand). */
export function machineRows(cluster: Cluster, exchange: boolean): MachineRows {
  if (cluster.size === 1) return ONE_MACHINE;
  const total = cluster.workers.reduce((a, b) => a + b, 0);
  const first = cluster.offset;
  const last = first + cluster.workers[cluster.rank]! - 1;
  return {
    part(batch) {
      const ranges = shardRanges(batch, total);
      return [ranges[first]![0], ranges[last]![1]];
    },
    async agree(step, planned, kept, bad) {
      if (!exchange) {
        if (bad.length > 0) throw new MgpuError('E_INTERNAL', `step ${step + 1}: ${bad.length} samples left out on a run that cannot leave any out`);
        return { n: planned, bad };
      }
      return exchangeKept(cluster, step, kept, bad);
    },
  };
}

/** Every machine's kept count and bad samples: one gather of the counts, and one of the samples when any machine has some. */
async function exchangeKept(cluster: Cluster, step: number, kept: number, bad: BadSample[]): Promise<{ n: number; bad: BadSample[] }> {
  const text = bad.length > 0 ? new TextEncoder().encode(JSON.stringify(bad)) : new Uint8Array(0);
  const counts = await cluster.gather(new Uint8Array(new Int32Array([kept, text.length]).buffer), `step ${step + 1}: the rows each machine kept`);
  const each = counts.map((b) => new Int32Array(b.slice().buffer));
  const n = each.reduce((a, c) => a + c[0]!, 0);
  const longest = Math.max(...each.map((c) => c[1]!));
  if (longest === 0) return { n, bad: [] };
  const padded = new Uint8Array(longest);
  padded.set(text);
  const all = await cluster.gather(padded, `step ${step + 1}: the samples each machine left out`);
  const decoder = new TextDecoder();
  const listOf = (b: Uint8Array, length: number): BadSample[] => (length > 0 ? (JSON.parse(decoder.decode(b.subarray(0, length))) as BadSample[]) : []);
  return { n, bad: all.flatMap((b, m) => listOf(b, each[m]![1]!)) };
}
