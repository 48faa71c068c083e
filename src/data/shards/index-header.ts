// What the run header says of a tfrecord (or webdataset) split's indexes: how many were read, built or
// rebuilt (and why), fetched from beside URL shards, and where they are kept (beside the shards, or
// in the cache folder).
import path from 'node:path';
import { INDEX_SUFFIX, isShardUrl } from '../../shared/shard-files.ts';
import type { ShardIndex } from './shard-index.ts';

/** e.g. "record indexes: 2 read, 1 rebuilt (train-00001: the shard changed since it was indexed ...), kept beside the shards". */
export function describeIndexes(indexes: readonly ShardIndex[], noun: 'record' | 'sample'): string {
  const n = (how: ShardIndex['how']) => indexes.filter((x) => x.how === how).length;
  const rebuilt = indexes.filter((x) => x.how === 'rebuilt');
  const parts = [
    n('fetched') ? `${n('fetched')} fetched (<url>${INDEX_SUFFIX} beside the shard)` : '',
    n('read') ? `${n('read')} read` : '',
    n('built') ? `${n('built')} built` : '',
    rebuilt.length ? `${rebuilt.length} rebuilt (${rebuilt.map((x) => `${path.basename(x.file)}: ${x.why}`).join('; ')})` : '',
  ].filter(Boolean);
  const cached = indexes.filter((x) => x.inCache);
  const urls = indexes.filter((x) => isShardUrl(x.file)).length;
  const where =
    urls === indexes.length && urls > 0
      ? `kept in the cache folder ${path.dirname(cached[0]!.indexFile)} (the shards are URLs)`
      : cached.length === 0
        ? 'kept beside the shards'
        : `kept in the cache folder ${path.dirname(cached[0]!.indexFile)}${cached.length < indexes.length ? ` (${cached.length} of ${indexes.length}: the others beside their shards)` : " (the shards' folder is not writable)"}`;
  return `${noun} indexes: ${parts.join(', ')}, ${where}`;
}
