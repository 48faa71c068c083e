// The records of a tfrecord split (or the samples of a webdataset split), in order (shard by shard, record by record), as typed arrays:
// which shard, where in it, how long; sample i is record i of this order. It gives the decoding
// threads the RecordRefs of a step's samples, as a PathTable gives an image folder's paths.
import path from 'node:path';
import type { RecordRef } from './record-image.ts';
import type { MemberRef } from './tar-member-image.ts';
import type { ShardIndex } from './shard-index.ts';

export class RecordTable {
  readonly count: number;
  readonly shardOf: Uint32Array; // each record's shard (the shard-aware order groups by it)
  private readonly recordOf: Uint32Array;
  private readonly offsets: Float64Array;
  private readonly lengths: Uint32Array;
  private readonly identities: string[]; // each URL shard's as indexed ('' for a local file)
  private readonly labels: Int32Array; // each record's label as indexed, checked again when the record is read
  private readonly indexFiles: string[];

  constructor(
    readonly shards: readonly string[],
    indexes: readonly ShardIndex[],
    private readonly key: string | null, // the image feature's key (null: a tar shard's samples, read as MemberRefs)
    private readonly labelKey: string | null = null, // the label feature's key (a TFRecord record's label is checked as it is read)
  ) {
    this.count = indexes.reduce((n, x) => n + x.count, 0);
    this.identities = indexes.map((x) => x.identity ?? '');
    this.shardOf = new Uint32Array(this.count);
    this.recordOf = new Uint32Array(this.count);
    this.offsets = new Float64Array(this.count);
    this.lengths = new Uint32Array(this.count);
    this.labels = new Int32Array(labelKey === null ? 0 : this.count);
    this.indexFiles = indexes.map((x) => x.indexFile);
    let at = 0;
    indexes.forEach((x, s) => {
      this.shardOf.fill(s, at, at + x.count);
      for (let r = 0; r < x.count; r++) this.recordOf[at + r] = r;
      this.offsets.set(x.offsets, at);
      this.lengths.set(x.lengths, at);
      if (labelKey !== null) this.labels.set(x.labels.subarray(0, x.count), at);
      at += x.count;
    });
  }

  ref(i: number): RecordRef | MemberRef {
    const s = this.shardOf[i]!;
    const at = { shard: this.shards[s]!, offset: this.offsets[i]!, length: this.lengths[i]!, ...(this.identities[s] ? { identity: this.identities[s] } : {}) };
    if (this.key === null) return { ...at, sample: this.recordOf[i]! };
    const label = this.labelKey === null ? {} : { label: { key: this.labelKey, indexed: this.labels[i]!, index: this.indexFiles[s]! } };
    return { ...at, record: this.recordOf[i]!, key: this.key, ...label };
  }

  /** The records of `indices`, for a decoding thread. */
  slice(indices: ArrayLike<number>): Array<RecordRef | MemberRef> {
    return Array.from(indices, (i) => this.ref(i));
  }

  /** Sample i as a split's record names it: "<shard file name>:<record number>". */
  relative(i: number): string {
    return `${path.basename(this.shards[this.shardOf[i]!]!)}:${this.recordOf[i]!}`;
  }
}
