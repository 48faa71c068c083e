// A `type: tfrecord` split: its shards (files:, sorted), each shard's record index (read where it
// is kept, or built by one scan that checks every record), its labels (class indices, int32
// [count]) and its features as a 'made' column [count, h, w, c] whose rows the image pipeline's
// threads decode from the records' image bytes, ahead of the steps that stage them. Sample i is
// record i of the shards in order: random access, so the seeded order, any N and M, resume and
// onBadSample: skip work as for an image folder.
import type { ShardHttpOptions, TfrecordImageSource } from '../../config/types.ts';
import { DataError } from '../../shared/errors.ts';
import { isShardUrl, shardFiles } from '../../shared/shard-files.ts';
import type { ClassMapping } from '../classes.ts';
import type { ImageOptions, ImageSplit } from '../images/load-images.ts';
import { requireSharp } from '../images/sharp-module.ts';
import { RecordTable } from './record-table.ts';
import { recordLabels } from './record-labels.ts';
import type { RecordKeys } from './record-features.ts';
import { ShardHttpError } from './shard-http.ts';
import { shardIndex, type ShardIndex, type ShardScanner } from './shard-index.ts';
import { urlShardIndexes } from './url-index.ts';
import { shardImageDataset } from './shard-image-dataset.ts';

export function loadTfrecord(src: TfrecordImageSource, keyPath: string, classes: ClassMapping | null, o: ImageOptions): ImageSplit | Promise<ImageSplit> {
  requireSharp(keyPath);
  const shards = shardFiles(src.files, `${keyPath}.files`);
  return whenIndexed(indexShards(shards, { image: src.image, label: src.label }, keyPath, src.http), (indexes) =>
    assemble(src, keyPath, classes, o, shards, indexes),
  );
}

function assemble(
  src: TfrecordImageSource,
  keyPath: string,
  classes: ClassMapping | null,
  o: ImageOptions,
  shards: string[],
  indexes: ShardIndex[],
): ImageSplit {
  const { labels, classes: names, distinct } = recordLabels(indexes, src.labelOffset, keyPath, classes, undefined, o.modelClasses ?? null);
  const table = new RecordTable(shards, indexes, src.image, src.label);
  const count = table.count;
  const found = `${count.toLocaleString('en-US')} record${count === 1 ? '' : 's'} in ${shards.length} shard${shards.length === 1 ? '' : 's'}`;
  return shardImageDataset({ src, keyPath, indexes, noun: 'record', table, labels, classes: names, distinct, source: `tfrecord files ${src.files}`, found }, o);
}

/**
 * The indexes of a split's shards, in order, its errors naming the split: local files' now (one
 * after the other), URLs' as a Promise (url-index.ts: HEAD, then the cache, the index beside it or
 * one streaming GET; a pattern's shards are all URLs or none).
 */
export function indexShards(
  shards: readonly string[],
  keys: RecordKeys | ShardScanner,
  keyPath: string,
  http: ShardHttpOptions | undefined,
): ShardIndex[] | Promise<ShardIndex[]> {
  if (shards.length > 0 && isShardUrl(shards[0]!))
    return urlShardIndexes(shards, keys, http).catch((err: unknown) =>
      namingSplit(keyPath, () => {
        throw err;
      }),
    );
  return shards.map((f) => namingSplit(keyPath, () => shardIndex(f, keys)));
}

/** `then(indexes)`, now or when they come. */
export function whenIndexed<T>(indexes: ShardIndex[] | Promise<ShardIndex[]>, then: (indexes: ShardIndex[]) => T): T | Promise<T> {
  return Array.isArray(indexes) ? then(indexes) : indexes.then(then);
}

/** A shard's indexing (or reading), its errors naming the split. */
export function namingSplit<T>(keyPath: string, index: () => T): T {
  try {
    return index();
  } catch (err) {
    if (err instanceof ShardHttpError) throw new ShardHttpError(`${keyPath}: ${err.message}`, err.hint);
    if (err instanceof DataError) throw new DataError(`${keyPath}: ${err.message}`, err.hint);
    throw err;
  }
}
