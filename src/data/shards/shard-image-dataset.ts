// The dataset of a split whose images are in shards (type: tfrecord with image / label, or type:
// webdataset), once its shards are indexed and its labels read: the image pipeline over the
// split's RecordTable, its features as a 'made' column [count, h, w, c] the pipeline's threads
// decode ahead of the steps, its labels (class indices, or one-hot rows) and its record index.
// Both loaders (load-tfrecord.ts, load-webdataset.ts) end here; only their header differs.
import type { ImageSource, ShardHttpOptions } from '../../shared/config/types.ts';
import { memoryColumn } from '../columns.ts';
import { decodeSpec, describeDecoding, rowBytesOf, type DecodeSpec } from '../images/decode-spec.ts';
import { ImagePipeline } from '../images/image-pipeline.ts';
import { imageThreads, type ImageOptions, type ImageSplit } from '../images/load-images.ts';
import { MadeColumn } from '../images/made-column.ts';
import { oneHotColumn } from '../images/one-hot-column.ts';
import type { FileFingerprint } from '../file-fingerprint.ts';
import type { RecordTable } from './record-table.ts';

export interface ShardImages {
  src: Omit<ImageSource, 'type' | 'dir' | 'list'>; // the decoding keys
  http: ShardHttpOptions | null; // data.<split>.http: how the decoding threads read URL shards (null: the defaults)
  keyPath: string;
  table: RecordTable;
  labels: Int32Array;
  classes: string[];
  source: string; // e.g. "tfrecord files ./train-*"
  found: string; // what the header says was found before the decoding: "48 records in 3 shards, 10 classes"
  indexes: string; // what it says of the indexes (describeIndexes)
  fingerprints: ReadonlyMap<string, FileFingerprint> | undefined; // of URL shards (url-index.ts), for the checkpoint's data record
}

export function shardImageDataset(s: ShardImages, o: ImageOptions): ImageSplit {
  const { table, labels, classes } = s;
  const count = table.count;
  const spec: DecodeSpec = decodeSpec(s.src, s.keyPath === 'data.train', o.seed, o.use);
  const header = `${s.source}: ${s.found}, ${spec.height}x${spec.width}x${spec.channels} ${spec.dtype}, ${describeDecoding(spec)}; ${s.indexes}`;
  const pipeline = new ImagePipeline(table, spec, imageThreads(o), header, s.keyPath === 'data.train' && o.skipBad === true, s.http);
  return {
    features: new MadeColumn(spec.dtype, [count, spec.height, spec.width, spec.channels], pipeline, rowBytesOf(spec)),
    labels: o.labels === 'onehot' ? oneHotColumn(labels, classes.length) : memoryColumn({ dtype: 'int32', shape: [count], data: labels }),
    count,
    source: s.source,
    pipeline,
    classes,
    index: { count, relative: (i) => table.relative(i), labels },
    ...(s.fingerprints ? { shardFingerprints: s.fingerprints } : {}),
  };
}

/** "10 classes", or "10 classes (7 with records)" when some have none. */
export function describeClasses(names: number, distinct: number, noun: 'records' | 'samples'): string {
  return `${names} class${names === 1 ? '' : 'es'}${distinct < names ? ` (${distinct} with ${noun})` : ''}`;
}
