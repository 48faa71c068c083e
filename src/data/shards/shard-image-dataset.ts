// The dataset of a split whose images are in shards (type: tfrecord with image / label, or type:
// webdataset), once its shards are indexed and its labels read: the image pipeline over the
// split's RecordTable, its features as a 'made' column [count, h, w, c] the pipeline's threads
// decode ahead of the steps, its labels (class indices, or one-hot rows) and its record index.
// Both loaders (load-tfrecord.ts, load-webdataset.ts) end here; only what their header says was
// found differs. What follows from the indexes (the header's indexes part, the URL shards'
// fingerprints) and the source (data.<split>.http) is worked out here, once for both.
import type { ImageSource, ShardHttpOptions } from '../../config/types.ts';
import { memoryColumn } from '../columns.ts';
import { decodeSpec, describeDecoding, rowBytesOf, type DecodeSpec } from '../images/decode-spec.ts';
import { ImagePipeline } from '../images/image-pipeline.ts';
import { imageThreads, type ImageOptions, type ImageSplit } from '../images/load-images.ts';
import { MadeColumn } from '../images/made-column.ts';
import { oneHotColumn } from '../images/one-hot-column.ts';
import { describeIndexes } from './index-header.ts';
import type { RecordTable } from './record-table.ts';
import type { ShardIndex } from './shard-index.ts';
import { urlFingerprints } from './url-index.ts';

export interface ShardImages {
  src: Omit<ImageSource, 'type' | 'dir' | 'list'> & { http?: ShardHttpOptions; openShards?: number }; // the decoding keys; data.<split>.http: how the threads read URL shards; data.train.order: shards
  keyPath: string;
  indexes: readonly ShardIndex[];
  noun: 'record' | 'sample'; // what a shard holds, as the header says it
  table: RecordTable;
  labels: Int32Array;
  classes: string[];
  distinct: number; // the classes with a record
  source: string; // e.g. "tfrecord files ./train-*"
  found: string; // what the header says was found before the classes: "48 records in 3 shards"
}

export function shardImageDataset(s: ShardImages, o: ImageOptions): ImageSplit {
  const { table, labels, classes } = s;
  const count = table.count;
  const spec: DecodeSpec = decodeSpec(s.src, s.keyPath === 'data.train', o.seed, o.use);
  const found = `${s.found}, ${describeClasses(classes.length, s.distinct, `${s.noun}s`)}`;
  const header = `${s.source}: ${found}, ${spec.height}x${spec.width}x${spec.channels} ${spec.dtype}, ${describeDecoding(spec)}; ${describeIndexes(s.indexes, s.noun)}`;
  const pipeline = new ImagePipeline(table, spec, imageThreads(o), header, s.keyPath === 'data.train' && o.skipBad === true, s.src.http ?? null);
  const fingerprints = urlFingerprints(s.indexes); // of URL shards, for the checkpoint's data record
  return {
    features: new MadeColumn(spec.dtype, [count, spec.height, spec.width, spec.channels], pipeline, rowBytesOf(spec)),
    labels: o.labels === 'onehot' ? oneHotColumn(labels, classes.length) : memoryColumn({ dtype: 'int32', shape: [count], data: labels }),
    count,
    source: s.source,
    pipeline,
    classes,
    index: { count, relative: (i) => table.relative(i), labels },
    ...(fingerprints ? { shardFingerprints: fingerprints } : {}),
    ...(s.src.openShards !== undefined && s.keyPath === 'data.train' ? { shardOrder: { shardOf: table.shardOf, openShards: s.src.openShards } } : {}),
  };
}

/** "10 classes", or "10 classes (7 with records)" when some have none. */
function describeClasses(names: number, distinct: number, noun: 'records' | 'samples'): string {
  return `${names} class${names === 1 ? '' : 'es'}${distinct < names ? ` (${distinct} with ${noun})` : ''}`;
}
