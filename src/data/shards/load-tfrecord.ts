// A `type: tfrecord` split: its shards (files:, sorted), each shard's record index (read where it
// is kept, or built by one scan that checks every record), its labels (class indices, int32
// [count]) and its features as a 'made' column [count, h, w, c] whose rows the image pipeline's
// threads decode from the records' image bytes, ahead of the steps that stage them. Sample i is
// record i of the shards in order: random access, so the seeded order, any N and M, resume and
// onBadSample: skip work as for an image folder.
import type { TfrecordImageSource } from '../../shared/config/types.ts';
import { DataError } from '../../shared/errors.ts';
import { shardFiles } from '../../shared/shard-files.ts';
import type { ClassMapping } from '../classes.ts';
import type { ImageOptions, ImageSplit } from '../images/load-images.ts';
import { requireSharp } from '../images/sharp-module.ts';
import { describeIndexes } from './index-header.ts';
import { RecordTable } from './record-table.ts';
import { recordLabels } from './record-labels.ts';
import { shardIndex } from './shard-index.ts';
import { describeClasses, shardImageDataset } from './shard-image-dataset.ts';

export function loadTfrecord(src: TfrecordImageSource, keyPath: string, classes: ClassMapping | null, o: ImageOptions): ImageSplit {
  requireSharp(keyPath);
  const shards = shardFiles(src.files, `${keyPath}.files`);
  const indexes = shards.map((f) => namingSplit(keyPath, () => shardIndex(f, { image: src.image, label: src.label })));
  const { labels, classes: names, distinct } = recordLabels(indexes, src.labelOffset, keyPath, classes);
  const table = new RecordTable(shards, indexes, src.image);
  const count = table.count;
  const found = `${count.toLocaleString('en-US')} record${count === 1 ? '' : 's'} in ${shards.length} shard${shards.length === 1 ? '' : 's'}`;
  const source = `tfrecord files ${src.files}`;
  const indexesSay = describeIndexes(indexes, 'record');
  return shardImageDataset(
    { src, keyPath, table, labels, classes: names, source, found: `${found}, ${describeClasses(names.length, distinct, 'records')}`, indexes: indexesSay },
    o,
  );
}

/** A shard's indexing (or reading), its errors naming the split. */
export function namingSplit<T>(keyPath: string, index: () => T): T {
  try {
    return index();
  } catch (err) {
    if (err instanceof DataError) throw new DataError(`${keyPath}: ${err.message}`, err.hint);
    throw err;
  }
}
