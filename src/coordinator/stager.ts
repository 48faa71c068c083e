// Copies the rows of each rank's shard into that rank's input buffer in the slab: all feature
// rows, then all label rows (the format the worker's ShardReader expects).
import type { SlabLayout } from '../shared/layout.ts';
import type { Shard } from '../shared/shard.ts';
import type { Slab } from '../shared/slab.ts';
import { gatherRows, rowBytes, type Dataset } from './data/rows.ts';

export class Stager {
  private readonly buffer: Uint8Array;
  // What each slot holds, so a batch staged ahead is not staged twice; eval and predict chunks
  // overwrite a slot and leave no tag, so a staged batch can never be mistaken for another.
  private readonly tags: [string | null, string | null] = [null, null];

  constructor(private readonly slab: Slab, private readonly layout: SlabLayout) {
    this.buffer = new Uint8Array(layout.inputBytes);
  }

  /** `indices[s.start..s.end)` are the dataset rows of shard s; `tag` names the content. */
  stage(ds: Dataset, indices: Uint32Array, shards: Shard[], slot: 0 | 1, tag: string | null = null): void {
    this.tags[slot] = null;
    for (const s of shards) {
      const rows = indices.subarray(s.start, s.end);
      const at = this.layout.input[s.rank]![slot];
      // Mapped: gathered straight into the shared pages; else through a local buffer.
      const direct = this.slab.bytes(at!, rows.length * (rowBytes(ds.features) + rowBytes(ds.labels)));
      const out = direct ?? this.buffer;
      const f = gatherRows(ds.features, rows, out, 0);
      const l = gatherRows(ds.labels, rows, out, f);
      if (!direct) this.slab.write(at!, this.buffer.subarray(0, f + l));
    }
    this.tags[slot] = tag;
  }

  holds(slot: 0 | 1, tag: string): boolean {
    return this.tags[slot] === tag;
  }
}
