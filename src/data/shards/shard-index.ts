// A shard's record index (a TFRecord shard's, or any format's given its scan), built once and kept: beside the shard as `<shard>.mgpu-index`, or, when
// the shard's folder is not writable, in the cache folder (MGPU_CACHE_DIR, else
// $XDG_CACHE_HOME/mgpu-train, else ~/.cache/mgpu-train) under a name made from the shard's
// absolute path. An index that is stale (the shard's size or mtime changed), of another version,
// checked for other keys, or not an index at all, is rebuilt, and the reason is kept for the
// run header. Written atomically: a crash never leaves half an index.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomically } from '../../shared/atomic-write.ts';
import { DataError } from '../../shared/errors.ts';
import { INDEX_SUFFIX } from '../../shared/shard-files.ts';
import { decodeIndex, encodeIndex, type IndexStamp, type RecordIndex } from './index-file.ts';
import { scanShard } from './index-scan.ts';
import { keysStamp, type RecordKeys } from './record-features.ts';

export { INDEX_SUFFIX };

export interface ShardIndex extends RecordIndex {
  file: string;
  indexFile: string; // where its index is kept
  inCache: boolean; // in the cache folder (the shard's folder is not writable)
  how: 'read' | 'built' | 'rebuilt';
  why: string | null; // why it was rebuilt
}

/** The cache folder of indexes whose shard's folder is not writable. */
export function indexCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.MGPU_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'mgpu-train');
}

/** How a shard of another format is indexed: the keys its index is stamped with, and its scan. */
export interface ShardScanner {
  stamp: string;
  scan: (file: string, size: number) => RecordIndex;
}

/** The index of `file` for `keys` (a TFRecord shard's) or by `keys.scan`: read where it is kept when it is still good, else built by one scan and kept. */
export function shardIndex(file: string, keys: RecordKeys | ShardScanner): ShardIndex {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (err) {
    throw new DataError(`cannot read shard ${file}: ${(err as Error).message}`, 'check that it exists and that this user may read it');
  }
  const stamp: IndexStamp = { size: st.size, mtimeMs: st.mtimeMs, keys: 'scan' in keys ? keys.stamp : keysStamp(keys) };
  const beside = `${file}${INDEX_SUFFIX}`;
  const inCache = !writable(path.dirname(file));
  const indexFile = inCache ? cachedName(file) : beside;
  let why: string | null = null;
  for (const f of inCache ? [beside, indexFile] : [indexFile]) {
    const kept = readIndex(f, stamp);
    if (typeof kept !== 'string') return { ...kept, file, indexFile: f, inCache: f !== beside, how: 'read', why: null };
    why ??= kept || null;
  }
  const index = 'scan' in keys ? keys.scan(file, st.size) : scanShard(file, st.size, keys);
  keep(indexFile, encodeIndex(index, stamp));
  return { ...index, file, indexFile, inCache, how: why ? 'rebuilt' : 'built', why };
}

/** The index kept in `f`, or why not ('' when there is none). */
function readIndex(f: string, stamp: IndexStamp): RecordIndex | string {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(f);
  } catch {
    return '';
  }
  return decodeIndex(bytes, stamp);
}

function keep(indexFile: string, bytes: Uint8Array): void {
  try {
    fs.mkdirSync(path.dirname(indexFile), { recursive: true });
    writeFileAtomically(indexFile, bytes);
  } catch (err) {
    throw new DataError(
      `cannot write the record index ${indexFile}: ${(err as Error).message}`,
      "make the shards' folder writable, or set MGPU_CACHE_DIR to a writable folder for the indexes",
    );
  }
}

function writable(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function cachedName(file: string): string {
  const abs = path.resolve(file);
  const tag = createHash('sha256').update(abs).digest('hex').slice(0, 16);
  return path.join(indexCacheDir(), 'tfrecord-index', `${path.basename(abs)}-${tag}${INDEX_SUFFIX}`);
}
