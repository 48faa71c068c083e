// Reading a range of a shard's bytes, for the decoding threads (record-image.ts,
// tar-member-image.ts): the one place a record or a tar member is read once its shard is indexed.
// A local shard by one pread; a URL's by one HTTP Range request (shard-http.ts) through this
// thread's client, set up by useShardHttp (its share of data.<split>.http.inFlight). A shard gone
// since it was indexed, shorter than it was, or a server that fails, is a DataError naming it.
import fs from 'node:fs';
import type { ShardHttpOptions } from '../../config/types.ts';
import { SHARD_HTTP_DEFAULTS } from '../../config/validate/shard-http.ts';
import { DataError, messageOf } from '../../shared/errors.ts';
import { readFully } from '../../shared/read-fully.ts';
import { isShardUrl } from '../../shared/shard-files.ts';
import { ShardHttp } from './shard-http.ts';

let client: ShardHttp | null = null;

/** This thread's reads of URL shards: `options` with at most `inFlight` requests at once. */
export function useShardHttp(options: ShardHttpOptions, inFlight: number): void {
  client?.close();
  client = new ShardHttp(options, inFlight);
}

/**
 * `length` bytes of `shard` from byte `offset`; `where` says what they are, for messages ("record
 * 17 (at byte 1234)"); `identity`: a URL shard's as indexed (its reads ask for that version).
 */
export async function readShardRange(shard: string, offset: number, length: number, where: string, identity = ''): Promise<Buffer> {
  if (isShardUrl(shard)) return (client ??= new ShardHttp(SHARD_HTTP_DEFAULTS)).range(shard, offset, length, where, identity);
  const bytes = Buffer.allocUnsafe(length);
  let fd: number;
  try {
    fd = fs.openSync(shard, 'r');
  } catch (err) {
    throw new DataError(`cannot read shard ${shard}: ${messageOf(err)} (it was there when it was indexed)`, 'put the shard back, then run again');
  }
  try {
    readFully(fd, bytes, offset, { file: shard, why: 'it is shorter than when it was indexed', error: (m) => new DataError(`shard ${m}`) });
  } finally {
    fs.closeSync(fd);
  }
  return bytes;
}
