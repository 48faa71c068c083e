// The record (sample) index of a shard given as an http(s):// URL. Its HEAD gives the size and
// identity (ETag, else Last-Modified) in place of a file's size and mtime; then, in this order:
// 1. the index kept in the cache folder for that URL (indexCacheDir()/url-index/, under a name
//    made from the URL without its query: a presigned URL's signature changes, its object does
//    not), stamped with the size and the identity: read when both still match (and, where the
//    server gives no ETag or Last-Modified, the CRC-32C of the shard's first and last 64 KiB,
//    asked for by Range requests);
// 2. `<url>.mgpu-index` beside the shard (the path with the suffix, the same query), as a local
//    run leaves it beside local shards and a user uploads it: its stamp's mtime is a local file's,
//    which no server's ETag or Last-Modified can match, so it is taken when its size, keys,
//    version, its own CRC and the CRC-32C of the shard's ends (Range requests) match, then kept in
//    the cache folder stamped with the identity ('fetched'): an old index beside a rewritten shard
//    is never read for its labels (the labels of a TFRecord shard's records are checked again as
//    each is read: record-image.ts);
// 3. else one streaming GET of the whole shard through the scan a local shard's is built by
//    (scan-reads.ts), kept in the cache folder ('built', or 'rebuilt' with why the others could not
//    be used).
// The shards are indexed `inFlight` at a time, in order of their URLs; every HTTP failure is a
// DataError naming the URL (shard-http.ts).
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { ShardHttpOptions } from '../../config/types.ts';
import { SHARD_HTTP_DEFAULTS } from '../../config/validate/shard-http.ts';
import { crc32c } from '../../shared/crc32c.ts';
import { INDEX_SUFFIX, isShardUrl } from '../../shared/shard-files.ts';
import { FINGERPRINT_END_BYTES, fingerprintRanges, type FileFingerprint } from '../file-fingerprint.ts';
import { decodeIndex, encodeIndex, type IndexStamp, type RecordIndex } from './index-file.ts';
import type { RecordKeys } from './record-features.ts';
import { scanStream } from './scan-reads.ts';
import { eachInFlight, type ShardHttp } from './shard-http.ts';
import { againOrNamed, indexCacheDir, keep, readIndex, scannerOf, type ShardIndex, type ShardScanner } from './shard-index.ts';

/** The indexes of the shards `urls`, in their order, `options.inFlight` shards at a time. */
export async function urlShardIndexes(
  urls: readonly string[],
  keys: RecordKeys | ShardScanner,
  options: ShardHttpOptions = SHARD_HTTP_DEFAULTS,
): Promise<ShardIndex[]> {
  return eachInFlight(urls, options, (url, client) => urlShardIndex(url, keys, client));
}

/** The index of one URL's shard (the module's comment: cache, beside, or built). */
export async function urlShardIndex(url: string, keys: RecordKeys | ShardScanner, client: ShardHttp): Promise<ShardIndex> {
  const scanner = scannerOf(keys);
  const info = await client.head(url);
  const stamp: IndexStamp = { size: info.size, mtimeMs: identityNumber(info.identity), keys: scanner.stamp, identity: info.identity, fingerprint: null };
  const cached = cachedUrlName(url);
  const of = { file: url, indexFile: cached, inCache: true, size: info.size, identity: info.identity };
  let ends: number | null = null; // the CRC-32C of the shard's ends, asked for once when an index needs it
  const endsNow = async () => (ends ??= await urlEndsCrc(client, url, info.size, info.identity));
  let why: string | null = null;
  let stale: string | null = null;
  const kept = readIndex(cached, stamp);
  if (typeof kept !== 'string') {
    // An ETag or Last-Modified binds it to the bytes it was built from; without either, their ends' CRC does.
    const changed = info.identity ? null : fingerprintChanged(kept, await endsNow(), info.size);
    if (!changed) return { ...kept, ...of, how: 'read', why: null };
    [why, stale] = [`the one in the cache folder: ${changed}`, cached];
  } else if (kept) [why, stale] = [`the one in the cache folder: ${kept}`, cached];
  const beside = indexUrlOf(url);
  const got = await client.fetchIfThere(beside, `its index ${beside}`);
  if ('bytes' in got) {
    // Written where the shard was local (its mtime no server gives): bound to the shard by its size and its ends' CRC.
    const fetched = decodeIndex(got.bytes, { ...stamp, mtimeMs: null });
    const changed = typeof fetched === 'string' ? fetched : fingerprintChanged(fetched, await endsNow(), info.size);
    if (!changed && typeof fetched !== 'string') {
      keep(cached, encodeIndex(fetched, { ...stamp, fingerprint: ends }));
      return { ...fetched, ...of, how: 'fetched', why: null };
    }
    [why, stale] = [`${beside}: ${changed}`, beside];
  }
  const tap = new EndsTap(info.size);
  const index = await againOrNamedAsync(
    () => client.stream(url, 'the whole shard, to index it', info.size, (body) => scanStream(scanner.scan(url, info.size), tap.through(body), url)),
    url,
    stale,
    why,
  );
  const fingerprint = tap.crc() ?? (await endsNow()); // a scan that stops before the shard's end has not seen its tail
  keep(cached, encodeIndex(index, { ...stamp, fingerprint }));
  return { ...index, fingerprint, ...of, how: why ? 'rebuilt' : 'built', why };
}

/** Why an index of the ends' CRC `kept.fingerprint` is not of a shard whose ends' CRC is `now` (null when it is). */
function fingerprintChanged(kept: RecordIndex, now: number, size: number): string | null {
  if (kept.fingerprint === now) return null;
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  const what = size > 2 * FINGERPRINT_END_BYTES ? 'first and last 64 KiB' : 'bytes';
  return `the shard changed since it was indexed (the CRC-32C of its ${what} is ${hex(now)}, not ${hex(kept.fingerprint ?? 0)})`;
}

async function againOrNamedAsync<T>(scan: () => Promise<T>, file: string, stale: string | null, why: string | null): Promise<T> {
  try {
    return await scan();
  } catch (err) {
    return againOrNamed(
      () => {
        throw err;
      },
      file,
      stale,
      why,
    );
  }
}

/** The CRC-32C of a URL shard's ends (file-fingerprint.ts's fingerprintRanges) by Range requests of the version indexed. */
async function urlEndsCrc(client: ShardHttp, url: string, size: number, identity: string): Promise<number> {
  const parts: Buffer[] = [];
  for (const [offset, length] of fingerprintRanges(size))
    if (length > 0) parts.push(await client.range(url, offset, length, `its first or last bytes (for the index's check)`, identity));
  return crc32c(Buffer.concat(parts));
}

/** Keeps a shard's ends (fingerprintRanges) as its streamed body passes: their CRC-32C without another request. */
class EndsTap {
  private readonly ranges: Array<[number, number]>;
  private readonly kept: Buffer;
  private seen = 0; // the bytes of the body that have passed

  constructor(readonly size: number) {
    this.ranges = fingerprintRanges(size);
    this.kept = Buffer.alloc(this.ranges.reduce((n, [, length]) => n + length, 0));
  }

  async *through(body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    for await (const chunk of body) {
      let into = 0;
      for (const [offset, length] of this.ranges) {
        const from = Math.max(offset, this.seen);
        const to = Math.min(offset + length, this.seen + chunk.length);
        if (from < to) this.kept.set(chunk.subarray(from - this.seen, to - this.seen), into + from - offset);
        into += length;
      }
      this.seen += chunk.length;
      yield chunk;
    }
  }

  /** Their CRC-32C, or null when the body did not pass to the shard's end. */
  crc(): number | null {
    return this.seen >= this.size ? crc32c(this.kept) : null;
  }
}

/** `<url>.mgpu-index`: the suffix on the URL's path, its query kept. */
export function indexUrlOf(url: string): string {
  const u = new URL(url);
  u.pathname += INDEX_SUFFIX;
  return u.toString();
}

/** Where the index of `url` is kept in the cache folder: named by the URL's origin and path (no query). */
export function cachedUrlName(url: string): string {
  const u = new URL(url);
  const tag = createHash('sha256').update(`${u.origin}${u.pathname}`).digest('hex').slice(0, 16);
  const base = path.posix.basename(u.pathname).replace(/[^\w.-]/g, '_') || 'shard'; // its escapes kept: a name of safe characters
  return path.join(indexCacheDir(), 'url-index', `${base}-${tag}${INDEX_SUFFIX}`);
}

/** A URL shard's identity as the number an index keeps in its mtime's place (48 bits of its SHA-256: exact in a float64); 0 for none. */
export function identityNumber(identity: string): number {
  if (!identity) return 0;
  return createHash('sha256').update(identity).digest().readUIntBE(0, 6);
}

/**
 * A URL shard's fingerprint for the checkpoint's data record (data-record.ts), where a local
 * file's is its size, mtime and the CRC-32C of its ends: its size (HEAD), mtime 0 (a server's
 * ETag is no time), and the CRC-32C of its index (each record's offset, length and label), which
 * follows its records and labels: a resume on a shard of other records is refused.
 */
export function urlFingerprint(x: ShardIndex): FileFingerprint {
  const n = x.count;
  const arrays = [x.offsets.subarray(0, n), x.lengths.subarray(0, n), x.labels.subarray(0, n)].map((a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  const all = new Uint8Array(arrays.reduce((k, a) => k + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    all.set(a, at);
    at += a.length;
  }
  return { bytes: x.size ?? 0, mtimeMs: 0, crc32c: crc32c(all).toString(16).padStart(8, '0') };
}

/** The fingerprints of the URL shards among `indexes`, by URL (none when they are local files). */
export function urlFingerprints(indexes: readonly ShardIndex[]): Map<string, FileFingerprint> | undefined {
  const urls = indexes.filter((x) => isShardUrl(x.file));
  return urls.length ? new Map(urls.map((x) => [x.file, urlFingerprint(x)])) : undefined;
}
