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

/** Splits a batch over the given ranks (ascending), dropping the ranks that get no rows. */
export function assignShards(batch: number, ranks: readonly number[]): Shard[] {
  return shardRanges(batch, ranks.length)
    .map(([start, end], i) => ({ rank: ranks[i]!, start, end }))
    .filter((s) => s.end > s.start);
}
