// A shard's record index (a TFRecord shard's, or any format's given its scan), built once and kept: beside the shard as `<shard>.mgpu-index`, or, when
// the shard's folder is not writable, in the cache folder (MGPU_CACHE_DIR, else
// $XDG_CACHE_HOME/mgpu-train, else ~/.cache/mgpu-train) under a name made from the shard's
// absolute path. An index that is stale (the shard's size, mtime or the CRC-32C of its ends
// changed), of another version, checked for other keys, edited or damaged (its own CRC-32C), or
// not an index at all, is rebuilt, and the reason is kept for the run header; a shard that cannot
// be indexed again then is a DataError naming both files. Written atomically: a crash never
// leaves half an index.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomically } from '../../shared/atomic-write.ts';
import { cacheDir } from '../../shared/cache-dir.ts';
import { DataError } from '../../shared/errors.ts';
import { INDEX_SUFFIX } from '../../shared/shard-files.ts';
import { decodeIndex, encodeIndex, type IndexStamp, type RecordIndex } from './index-file.ts';
import { endsCrc } from '../file-fingerprint.ts';
import { tfrecordScan } from './index-scan.ts';
import { scanFile, type Scan } from './scan-reads.ts';
import { keysStamp, type RecordKeys } from './record-features.ts';

export { INDEX_SUFFIX };

export interface ShardIndex extends RecordIndex {
  file: string;
  indexFile: string; // where its index is kept
  inCache: boolean; // in the cache folder (the shard's folder is not writable)
  how: 'read' | 'built' | 'rebuilt' | 'fetched'; // fetched: a URL shard's, from <url>.mgpu-index beside it
  why: string | null; // why it was rebuilt
  size?: number; // a URL shard's, from its HEAD
  identity?: string; // a URL shard's, from its HEAD ("etag ...", "last-modified ...", ""): its reads ask for that version
}

/** The cache folder of indexes whose shard's folder is not writable (and of URL shards'). */
export const indexCacheDir = cacheDir;

/** How a shard of another format is indexed: the keys its index is stamped with, and its scan (scan-reads.ts). */
export interface ShardScanner {
  stamp: string;
  scan: (file: string, size: number) => Scan<RecordIndex>;
}

/** The stamp's keys and the scan of `keys`: a TFRecord shard's, or another format's scanner. */
export function scannerOf(keys: RecordKeys | ShardScanner): ShardScanner {
  return 'scan' in keys ? keys : { stamp: keysStamp(keys), scan: (file, size) => tfrecordScan(file, size, keys) };
}

/** The index of `file` for `keys` (a TFRecord shard's) or by `keys.scan`: read where it is kept when it is still good, else built by one scan and kept. */
export function shardIndex(file: string, keys: RecordKeys | ShardScanner): ShardIndex {
  const scanner = scannerOf(keys);
  const fd = openShard(file);
  try {
    const st = fs.fstatSync(fd);
    const ended = { file, why: 'it shrank while it was indexed', error: (m: string) => new DataError(m) };
    const stamp: IndexStamp = { size: st.size, mtimeMs: st.mtimeMs, keys: scanner.stamp, fingerprint: endsCrc(fd, st.size, ended) };
    const beside = `${file}${INDEX_SUFFIX}`;
    const inCache = !writable(path.dirname(file));
    const indexFile = inCache ? cachedName(file) : beside;
    let why: string | null = null;
    let stale: string | null = null; // the index that no longer matches the shard, for an error of its scan
    for (const f of inCache ? [beside, indexFile] : [indexFile]) {
      const kept = readIndex(f, stamp);
      if (typeof kept !== 'string') return { ...kept, file, indexFile: f, inCache: f !== beside, how: 'read', why: null };
      if (kept && !why) [why, stale] = [kept, f];
    }
    const index = againOrNamed(() => scanFile(scanner.scan(file, st.size), fd), file, stale, why);
    keep(indexFile, encodeIndex(index, stamp));
    return { ...index, fingerprint: stamp.fingerprint!, file, indexFile, inCache, how: why ? 'rebuilt' : 'built', why };
  } finally {
    fs.closeSync(fd);
  }
}

function openShard(file: string): number {
  try {
    return fs.openSync(file, 'r');
  } catch (err) {
    throw new DataError(`cannot read shard ${file}: ${(err as Error).message}`, 'check that it exists and that this user may read it');
  }
}

/**
 * The scan of a shard whose kept index `stale` did not match it (`why`): a shard that cannot be
 * indexed again is a DataError naming both files, never a reason to read the old index's labels.
 */
export function againOrNamed<T>(scan: () => T, file: string, stale: string | null, why: string | null): T {
  try {
    return scan();
  } catch (err) {
    if (stale === null || !(err instanceof DataError)) throw err;
    throw new DataError(
      `the record index ${stale} does not match the shard ${file} (${why}), and the shard cannot be indexed again: ${err.message}`,
      err.hint ?? 'put back the shard the index was made from, or fix the shard, then run again',
    );
  }
}

/** The index kept in `f`, or why not ('' when there is none). */
export function readIndex(f: string, stamp: IndexStamp): RecordIndex | string {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(f);
  } catch {
    return '';
  }
  return decodeIndex(bytes, stamp);
}

export function keep(indexFile: string, bytes: Uint8Array): void {
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
