// A `type: webdataset` split: its tar shards (files:, or its other name shards:, sorted), each shard's sample index (read
// where it is kept, or built by one scan that checks every sample: shard-index.ts, as a TFRecord
// shard's), its labels (the .cls class indices plus labelOffset) and its features as a 'made'
// column whose rows the image pipeline's threads decode from the samples' image members. Sample i
// is sample i of the shards in order: random access, so the seeded order, any N and M, resume and
// onBadSample: skip work as for an image folder.
import type { WebdatasetSource } from '../../config/types.ts';
import { shardFiles } from '../../shared/shard-files.ts';
import type { ClassMapping } from '../classes.ts';
import type { ImageOptions, ImageSplit } from '../images/load-images.ts';
import { requireSharp } from '../images/sharp-module.ts';
import { indexShards, whenIndexed } from './load-tfrecord.ts';
import { RecordTable } from './record-table.ts';
import { recordLabels } from './record-labels.ts';
import type { ShardIndex } from './shard-index.ts';
import { tarScan } from './webdataset-scan.ts';
import { shardImageDataset } from './shard-image-dataset.ts';

export function loadWebdataset(src: WebdatasetSource, keyPath: string, classes: ClassMapping | null, o: ImageOptions): ImageSplit | Promise<ImageSplit> {
  requireSharp(keyPath);
  const shards = shardFiles(src.shards, `${keyPath}.shards`);
  const keys = { image: src.image, label: src.label };
  const scanner = { stamp: JSON.stringify(['webdataset', keys.image, keys.label]), scan: (f: string, size: number) => tarScan(f, size, keys) };
  return whenIndexed(indexShards(shards, scanner, keyPath, src.http), (indexes) => assemble(src, keyPath, classes, o, shards, indexes));
}

function assemble(src: WebdatasetSource, keyPath: string, classes: ClassMapping | null, o: ImageOptions, shards: string[], indexes: ShardIndex[]): ImageSplit {
  const place = (x: ShardIndex, r: number) => `shard ${x.file} sample ${r} (its image at byte ${x.offsets[r]!})`;
  const { labels, classes: names, distinct } = recordLabels(indexes, src.labelOffset, keyPath, classes, place, o.modelClasses ?? null);
  const table = new RecordTable(shards, indexes, null);
  return shardImageDataset(
    {
      src,
      keyPath,
      indexes,
      noun: 'sample',
      table,
      labels,
      classes: names,
      distinct,
      source: `webdataset shards ${src.shards}`,
      found: describeFound(indexes, table.count),
    },
    o,
  );
}

/** e.g. "1,000 samples in 3 shards (12 members of unknown extensions passed over)". */
function describeFound(indexes: readonly ShardIndex[], count: number): string {
  const unknown = indexes.reduce((n, x) => n + (x.unknown ?? 0), 0);
  const found = `${count.toLocaleString('en-US')} sample${count === 1 ? '' : 's'} in ${indexes.length} shard${indexes.length === 1 ? '' : 's'}`;
  return unknown ? `${found} (${unknown} member${unknown === 1 ? '' : 's'} of unknown extensions passed over)` : found;
}
