// Copies the rows of each rank's shard into that rank's input buffer in the slab, part after part
// of the row format (the model's inputs, the targets, the loss weights: see RowFormat), which is
// what the worker's ShardReader reads.
import { MgpuError } from '../../shared/errors.ts';
import type { SlabLayout } from '../../shared/layout.ts';
import type { RowFormat, RowPart } from '../../shared/protocol.ts';
import type { Shard } from '../../shared/shard.ts';
import type { Slab } from '../../shared/slab.ts';
import { inputArrays, targetArrays } from '../../data/parts.ts';
import { memoryColumn, type Column } from '../../data/columns.ts';
import type { Dataset } from '../../data/rows.ts';
import { rowBytesOf } from './row-format.ts';

const ONE = new Uint8Array(new Float32Array([1]).buffer);

/**
 * The array that fills `part` of a dataset's rows: the one of its name (the model's input or
 * output), or the only one of a model with one; null: weights of 1 (a split without weights).
 */
function arrayFor(ds: Dataset, part: RowPart): Column | null {
  if (part.role === 'weight') return ds.weights ? memoryColumn(ds.weights) : null;
  const arrays = part.role === 'input' ? inputArrays(ds) : targetArrays(ds);
  const a = arrays.length === 1 && arrays[0]!.name === '' ? arrays[0] : arrays.find((x) => x.name === part.name);
  if (!a) throw new MgpuError('E_INTERNAL', `no array for the row part ${part.role} '${part.name}' in ${ds.source}`);
  return a.array;
}

export class Stager {
  private readonly buffer: Uint8Array;
  private readonly rowBytes: number;
  // What each slot holds, so a batch staged ahead is not staged twice; eval and predict chunks
  // overwrite a slot and leave no tag, so a staged batch can never be mistaken for another.
  private readonly tags: [string | null, string | null] = [null, null];
  // Each dataset's column per row part, found once (a split's columns never change), not at every step.
  private readonly columns = new WeakMap<Dataset, (Column | null)[]>();

  constructor(
    private readonly slab: Slab,
    private readonly layout: SlabLayout,
    private readonly rows: RowFormat,
  ) {
    this.buffer = new Uint8Array(layout.inputBytes);
    this.rowBytes = rowBytesOf(rows);
  }

  /**
   * `indices[s.start..s.end)` are the dataset rows of shard s; `tag` names the content; `epoch`:
   * the epoch whose rows a pipeline made (augmented rows differ by epoch).
   */
  stage(ds: Dataset, indices: Uint32Array, shards: Shard[], slot: 0 | 1, tag: string | null = null, epoch = 0): void {
    this.tags[slot] = null;
    let arrays = this.columns.get(ds);
    if (!arrays) this.columns.set(ds, (arrays = this.rows.parts.map((p) => arrayFor(ds, p))));
    for (const s of shards) {
      const rows = indices.subarray(s.start, s.end);
      const at = this.layout.input[s.rank]![slot];
      // Mapped: gathered straight into the shared pages; else through a local buffer.
      const direct = this.slab.bytes(at!, rows.length * this.rowBytes);
      const out = direct ?? this.buffer;
      let offset = 0;
      for (const a of arrays) {
        if (a) {
          offset += a.gather(rows, out, offset, epoch);
        } else {
          for (let i = 0; i < rows.length; i++) out.set(ONE, offset + i * ONE.length);
          offset += rows.length * ONE.length;
        }
      }
      if (!direct) this.slab.write(at!, this.buffer.subarray(0, offset));
    }
    this.tags[slot] = tag;
  }

  holds(slot: 0 | 1, tag: string): boolean {
    return this.tags[slot] === tag;
  }
}
