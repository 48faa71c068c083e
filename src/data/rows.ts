// A split of data as columns (columns.ts: in memory, mapped from files, or made on demand); the
// copy of rows out of them is row-copy.ts.
import type { FileFingerprint } from './file-fingerprint.ts';
import type { NdArray } from '../shared/npy.ts';
import type { Column, HeldColumn, RowPipeline } from './columns.ts';
import type { SplitRecord } from './split-record.ts';

/** One array of a dataset, named by the model input it feeds or the output it is the target of. */
export interface NamedArray {
  name: string; // '' for the one array of a model with one input (output)
  array: Column;
  file: string; // where it was read from, for messages (a pattern: `./x-*.npy`)
  /** The files a pattern matched, in the order their rows are joined. */
  parts?: string[];
  /** A sample module's x or y (keyed by the model's names in each sample), not a file's array. */
  module?: 'x' | 'y';
}

export interface Dataset {
  features: Column; // the model's input (its first, when it has several)
  labels: Column; // the model's output's target (its first's, when it has several)
  /**
   * The arrays of the model's inputs, named by input (in the config's order; row-format.ts puts
   * them in the model's), or one array named '' for the model's only input; features is the
   * first. Absent: features alone (csv, mnist).
   */
  inputs?: NamedArray[];
  /** The same for the targets of the model's outputs; labels is the first. */
  targets?: NamedArray[];
  count: number; // shape[0] of both
  source: string; // for messages, e.g. "mnist digits [0, 8000)"
  /**
   * Each sample's weight in the loss, float32 [count], finite and >= 0 (sample-weights.ts): the
   * source's sample weights times, in the training set, its class's weight. Absent: all 1.
   */
  weights?: NdArray;
  /** Makes the rows of its 'made' columns ahead of the steps that stage them (decoded images). */
  pipeline?: RowPipeline;
  /** What the run header's input line says of a split read whole without a pipeline (a tfrecord split's x / y: its shards and indexes). */
  describe?: string;
  /** What a run's split was read from, as its checkpoints record it (data-record.ts; set by loadSplits). */
  record?: SplitRecord;
  /** The fingerprints of shards given as URLs, by URL (no file to read: shards/url-index.ts urlFingerprint), for that record. */
  shardFingerprints?: ReadonlyMap<string, FileFingerprint>;
  /** data.train.order: shards (shard-order.ts): the shard each row is read from, and how many shards are read at a time. */
  shardOrder?: ShardOrderSpec;
}

export interface ShardOrderSpec {
  shardOf: Uint32Array;
  openShards: number;
}

/** A dataset held whole in memory (CSV, mnist, a generator module): its columns are arrays too. */
export type HeldDataset = Dataset & {
  features: HeldColumn;
  labels: HeldColumn;
  inputs?: (NamedArray & { array: HeldColumn })[];
  targets?: (NamedArray & { array: HeldColumn })[];
};
