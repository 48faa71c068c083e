// A `type: webdataset` split: its tar shards (shards:, sorted), each shard's sample index (read
// where it is kept, or built by one scan that checks every sample: shard-index.ts, as a TFRecord
// shard's), its labels (the .cls class indices plus labelOffset) and its features as a 'made'
// column whose rows the image pipeline's threads decode from the samples' image members. Sample i
// is sample i of the shards in order: random access, so the seeded order, any N and M, resume and
// onBadSample: skip work as for an image folder.
import type { WebdatasetSource } from '../../shared/config/types.ts';
import { shardFiles } from '../../shared/shard-files.ts';
import type { ClassMapping } from '../classes.ts';
import { memoryColumn } from '../columns.ts';
import { decodeSpec, describeDecoding, rowBytesOf } from '../images/decode-spec.ts';
import { ImagePipeline } from '../images/image-pipeline.ts';
import { imageThreads, type ImageOptions, type ImageSplit } from '../images/load-images.ts';
import { MadeColumn } from '../images/made-column.ts';
import { oneHotColumn } from '../images/one-hot-column.ts';
import { requireSharp } from '../images/sharp-module.ts';
import { describeIndexes } from './index-header.ts';
import { namingSplit } from './load-tfrecord.ts';
import { RecordTable } from './record-table.ts';
import { recordLabels } from './record-labels.ts';
import { shardIndex, type ShardIndex } from './shard-index.ts';
import { scanTarShard } from './webdataset-scan.ts';

export function loadWebdataset(src: WebdatasetSource, keyPath: string, classes: ClassMapping | null, o: ImageOptions): ImageSplit {
  requireSharp(keyPath);
  const shards = shardFiles(src.shards, `${keyPath}.shards`);
  const keys = { image: src.image, label: src.label };
  const scanner = { stamp: JSON.stringify(['webdataset', keys.image, keys.label]), scan: (f: string, size: number) => scanTarShard(f, size, keys) };
  const indexes = shards.map((f) => namingSplit(keyPath, () => shardIndex(f, scanner)));
  const place = (x: ShardIndex, r: number) => `shard ${x.file} sample ${r} (its image at byte ${x.offsets[r]!})`;
  const { labels, classes: names, distinct } = recordLabels(indexes, src.labelOffset, keyPath, classes, place);
  const table = new RecordTable(shards, indexes, null);
  const count = table.count;
  const spec = decodeSpec(src, keyPath === 'data.train', o.seed, o.use);
  const header = `webdataset shards ${src.shards}: ${describeFound(indexes, count)}, ${names.length} class${names.length === 1 ? '' : 'es'}${distinct < names.length ? ` (${distinct} with samples)` : ''}, ${spec.height}x${spec.width}x${spec.channels} ${spec.dtype}, ${describeDecoding(spec)}; ${describeIndexes(indexes).replace('record indexes', 'sample indexes')}`;
  const pipeline = new ImagePipeline(table, spec, imageThreads(o), header, keyPath === 'data.train' && o.skipBad === true);
  return {
    features: new MadeColumn(spec.dtype, [count, spec.height, spec.width, spec.channels], pipeline, rowBytesOf(spec)),
    labels: o.labels === 'onehot' ? oneHotColumn(labels, names.length) : memoryColumn({ dtype: 'int32', shape: [count], data: labels }),
    count,
    source: `webdataset shards ${src.shards}`,
    pipeline,
    classes: names,
    index: { count, relative: (i) => table.relative(i), labels },
  };
}

/** e.g. "1,000 samples in 3 shards (12 members of unknown extensions passed over)". */
function describeFound(indexes: readonly ShardIndex[], count: number): string {
  const unknown = indexes.reduce((n, x) => n + (x.unknown ?? 0), 0);
  const found = `${count.toLocaleString('en-US')} sample${count === 1 ? '' : 's'} in ${indexes.length} shard${indexes.length === 1 ? '' : 's'}`;
  return unknown ? `${found} (${unknown} member${unknown === 1 ? '' : 's'} of unknown extensions passed over)` : found;
}
