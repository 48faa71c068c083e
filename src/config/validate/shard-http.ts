// data.<split>.http of a tfrecord or webdataset source: how its shards are read when they are
// http(s):// URLs (src/data/shards/shard-http.ts). Each key optional; a typo is named with the
// nearest known key. Given only where the config sets it: the loader takes the defaults otherwise.
import { int, isMapping, Section, fail } from '../checker.ts';
import type { ShardHttpOptions } from '../types.ts';

export const SHARD_HTTP_KEYS = ['inFlight', 'retries', 'timeoutMs'] as const;

/** The defaults of data.<split>.http. */
export const SHARD_HTTP_DEFAULTS: ShardHttpOptions = { inFlight: 8, retries: 5, timeoutMs: 30_000 };

/** The source's `http` key, or undefined when it is not given. */
export function shardHttp(s: Section): ShardHttpOptions | undefined {
  if (!s.has('http')) return undefined;
  const raw = s.obj.http;
  if (!isMapping(raw)) fail(s.at('http'), 'a mapping of inFlight, retries, timeoutMs', raw);
  const h = Section.open(raw, s.at('http'), SHARD_HTTP_KEYS);
  return {
    inFlight: h.opt('inFlight', int(1, 256), SHARD_HTTP_DEFAULTS.inFlight),
    retries: h.opt('retries', int(0, 20), SHARD_HTTP_DEFAULTS.retries),
    timeoutMs: h.opt('timeoutMs', int(100, 600_000), SHARD_HTTP_DEFAULTS.timeoutMs),
  };
}
