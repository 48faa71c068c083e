// Copies the rows of each rank's shard into that rank's input buffer in the slab: all feature
// rows, then all label rows (the format the worker's ShardReader expects).
import type { SlabLayout } from '../shared/layout.ts';
import type { Slab } from '../shared/slab.ts';
import { gatherRows, rowBytes, type Dataset } from './data/dataset.ts';

export class Stager {
  private readonly buffer: Uint8Array;

  constructor(private readonly slab: Slab, private readonly layout: SlabLayout) {
    this.buffer = new Uint8Array(layout.inputBytes);
  }

  /** Rows per rank that fit one input buffer of this dataset's row size. */
  static capacity(ds: Dataset, inputBytes: number): number {
    return Math.floor(inputBytes / (rowBytes(ds.features) + rowBytes(ds.labels)));
  }

  stage(ds: Dataset, indices: ArrayLike<number> & { subarray?: unknown }, ranges: Array<[number, number]>, slot: 0 | 1): void {
    const idx = indices as Uint32Array;
    ranges.forEach(([start, end], rank) => {
      if (end === start) return;
      const rows = idx.subarray(start, end);
      const f = gatherRows(ds.features, rows, this.buffer, 0);
      const l = gatherRows(ds.labels, rows, this.buffer, f);
      this.slab.write(this.layout.input[rank][slot], this.buffer.subarray(0, f + l));
    });
  }
}
