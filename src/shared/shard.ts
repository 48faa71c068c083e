// Splits a global batch of B samples over N workers: sizes differ by at most one and sum to B,
// the larger shards go to the lower ranks. A rank whose size is 0 sits the step out.

export function shardSizes(batch: number, workers: number): number[] {
  if (!Number.isInteger(batch) || batch < 0) throw new RangeError(`batch must be a non-negative integer, got ${batch}`);
  if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`workers must be a positive integer, got ${workers}`);
  const base = Math.floor(batch / workers);
  const extra = batch % workers;
  return Array.from({ length: workers }, (_, rank) => base + (rank < extra ? 1 : 0));
}

/** [start, end) of each rank's rows within the global batch. */
export function shardRanges(batch: number, workers: number): Array<[number, number]> {
  let at = 0;
  return shardSizes(batch, workers).map((n) => [at, (at += n)]);
}

/** One rank's part of a batch: rows [start, end) of the batch. */
export interface Shard {
  rank: number;
  start: number;
  end: number;
}

/**
 * The rows [start, end) of a batch that each of the given ranks (ascending) computes, dropping
 * the ranks that get no rows. The batch is split over `total` workers, of which these are the
 * ones from `offset` on (another machine's workers come before and after them); by default
 * over these ranks alone.
 */
export function assignShards(batch: number, ranks: readonly number[], offset = 0, total = ranks.length): Shard[] {
  const all = shardRanges(batch, total);
  return ranks.map((rank, i) => ({ rank, start: all[offset + i]![0], end: all[offset + i]![1] })).filter((s) => s.end > s.start);
}

/** The most rows one of `workers` ranks gets of a batch (the first of shardSizes): what a rank's input slot must hold. */
export function rowsPerRank(batch: number, workers: number): number {
  return Math.ceil(batch / workers);
}
