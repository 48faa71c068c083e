// Copies the rows of each rank's shard into that rank's input buffer in the slab: all feature
// rows, then all label rows, then (weighted) each row's float32 loss weight (the format the
// worker's ShardReader expects).
import type { SlabLayout } from '../shared/layout.ts';
import type { Shard } from '../shared/shard.ts';
import type { Slab } from '../shared/slab.ts';
import { gatherRows, rowBytes, type Dataset } from './data/rows.ts';

/** Bytes of a row's loss weight (float32). */
export const WEIGHT_BYTES = 4;
const ONE = new Uint8Array(new Float32Array([1]).buffer);

export class Stager {
  private readonly buffer: Uint8Array;
  // What each slot holds, so a batch staged ahead is not staged twice; eval and predict chunks
  // overwrite a slot and leave no tag, so a staged batch can never be mistaken for another.
  private readonly tags: [string | null, string | null] = [null, null];

  /** `weighted`: rows carry a weight; a dataset without weights gets 1s. */
  constructor(private readonly slab: Slab, private readonly layout: SlabLayout, private readonly weighted = false) {
    this.buffer = new Uint8Array(layout.inputBytes);
  }

  /** `indices[s.start..s.end)` are the dataset rows of shard s; `tag` names the content. */
  stage(ds: Dataset, indices: Uint32Array, shards: Shard[], slot: 0 | 1, tag: string | null = null): void {
    this.tags[slot] = null;
    for (const s of shards) {
      const rows = indices.subarray(s.start, s.end);
      const at = this.layout.input[s.rank]![slot];
      // Mapped: gathered straight into the shared pages; else through a local buffer.
      const w = this.weighted ? rows.length * WEIGHT_BYTES : 0;
      const direct = this.slab.bytes(at!, rows.length * (rowBytes(ds.features) + rowBytes(ds.labels)) + w);
      const out = direct ?? this.buffer;
      const f = gatherRows(ds.features, rows, out, 0);
      const l = gatherRows(ds.labels, rows, out, f);
      if (this.weighted && ds.weights) gatherRows(ds.weights, rows, out, f + l);
      else if (this.weighted) for (let i = 0; i < rows.length; i++) out.set(ONE, f + l + i * WEIGHT_BYTES);
      if (!direct) this.slab.write(at!, this.buffer.subarray(0, f + l + w));
    }
    this.tags[slot] = tag;
  }

  holds(slot: 0 | 1, tag: string): boolean {
    return this.tags[slot] === tag;
  }
}
