// The shard-aware order of a shard source's training samples (data.train.order: shards), for
// storage where reading records at random across the whole set is slow (a network file system,
// a disk that seeks): each epoch the shards are shuffled, then taken `openShards` at a time,
// and the samples of those shards are shuffled among themselves before the next group starts.
// So the records read at any time come from at most `openShards` shards (2 x openShards around a
// group's end, while the input feed reads ahead), where the global order reads every shard at
// once. What it costs: a batch holds samples of only those shards (with shards written
// unshuffled, by class, a batch sees few classes: write them with `mgpu-train shards --shuffle`),
// and an epoch is less random than a global permutation. It is drawn from (seed, epoch) alone
// like the global order (rng.ts), so it is the same on any number of workers and machines, and
// a resumed run takes the same batches.
import { permutation, shardOrderRng } from '../shared/rng.ts';

/** The order of one epoch: the dataset's rows, a permutation of 0..count-1. */
export type EpochOrder = (seed: number, epoch: number) => Uint32Array;

/** `shardOf[row]`: the shard each row of the dataset is read from (a hold-out keeps the rows of its part). */
export function shardOrder(shardOf: Uint32Array, openShards: number): EpochOrder {
  if (!Number.isInteger(openShards) || openShards < 1) throw new RangeError(`openShards must be a positive integer, got ${openShards}`);
  const groups = rowsByShard(shardOf);
  return (seed, epoch) => {
    const rng = shardOrderRng(seed, epoch);
    const shards = permutation(rng, groups.length);
    const out = new Uint32Array(shardOf.length);
    let at = 0;
    for (let g = 0; g < shards.length; g += openShards) {
      const open = Array.from(shards.subarray(g, g + openShards), (s) => groups[s]!);
      const rows = new Uint32Array(open.reduce((n, r) => n + r.length, 0));
      let k = 0;
      for (const r of open) rows.set(r, (k += r.length) - r.length);
      for (const i of permutation(rng, rows.length)) out[at++] = rows[i]!;
    }
    return out;
  };
}

/** The rows of each shard that has any, in row order; the shards in their own order. */
function rowsByShard(shardOf: Uint32Array): Uint32Array[] {
  const counts = new Map<number, number>();
  for (const s of shardOf) counts.set(s, (counts.get(s) ?? 0) + 1);
  const ids = [...counts.keys()].sort((a, b) => a - b);
  const groups = new Map(ids.map((s) => [s, new Uint32Array(counts.get(s)!)]));
  const filled = new Map(ids.map((s) => [s, 0]));
  shardOf.forEach((s, row) => {
    const f = filled.get(s)!;
    groups.get(s)![f] = row;
    filled.set(s, f + 1);
  });
  return ids.map((s) => groups.get(s)!);
}
