// The shards a tfrecord source's `files:` names: a file, a glob (`train-*-of-01024`: * and ? in the file name), or
// a brace range or list (`train-{00000..00099}-of-00100`, `{train,extra}-*`), expanded as a shell
// would (a range keeps the zero-padding of its first bound), every expanded name matched or
// required to exist, then sorted by code point: the shard order, and so the record order. The
// record indexes kept beside the shards (`<shard>.mgpu-index`) never match.
import fs from 'node:fs';
import { DataError } from './errors.ts';
import { isPattern, matchFiles } from './file-pattern.ts';

const BRACE = /\{([^{}]*)\}/;

/** The suffix of a shard's record index kept beside it (src/data/shards/shard-index.ts). */
export const INDEX_SUFFIX = '.mgpu-index';

/** `pattern` with its braces expanded (each `{a..b}` range and `{x,y}` list, left to right). */
export function expandBraces(pattern: string): string[] {
  const m = BRACE.exec(pattern);
  if (!m) return [pattern];
  const [whole, inner] = m as unknown as [string, string];
  const range = /^(\d+)\.\.(\d+)$/.exec(inner);
  let parts: string[];
  if (range) {
    const [lo, hi] = [Number(range[1]), Number(range[2])];
    const width = range[1]!.length;
    if (hi < lo || hi - lo > 1_000_000)
      throw new DataError(`the brace range {${inner}} in ${pattern} is empty or too long`, 'write {low..high} with low <= high');
    parts = Array.from({ length: hi - lo + 1 }, (_, i) => String(lo + i).padStart(width, '0'));
  } else parts = inner.split(',');
  const before = pattern.slice(0, m.index);
  const after = pattern.slice(m.index + whole.length);
  return parts.flatMap((p) => expandBraces(`${before}${p}${after}`));
}

/** Whether a shard pattern is an http:// or https:// URL (its shards are read over HTTP: src/data/shards/shard-http.ts). */
export function isShardUrl(pattern: string): boolean {
  return /^https?:\/\//i.test(pattern);
}

/**
 * The URLs of an http(s):// `pattern`: its braces expanded, sorted, each a valid URL. A `*` in a
 * URL's path is refused (a server lists no folder to match it against); a `?` starts the query
 * (a presigned URL's signature), never a glob. Nothing is requested here.
 */
function shardUrls(pattern: string, where: string): string[] {
  const urls = expandBraces(pattern);
  for (const one of urls) {
    if (one.split('?')[0]!.includes('*'))
      throw new DataError(
        `${where}: ${one} is a URL with a glob (*): a URL's shards cannot be listed`,
        'name them with a brace range instead: https://host/train-{00000..00099}.tar expands to train-00000.tar ... train-00099.tar',
      );
    try {
      new URL(one);
    } catch {
      throw new DataError(
        `${where}: ${one} is not a valid URL${one === pattern ? '' : ` (of ${pattern})`}`,
        'write it as http://host[:port]/path or https://host/path',
      );
    }
  }
  return [...new Set(urls)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The shard files (or URLs) of `pattern`, sorted; none, or a named file missing, is a DataError naming `where`. */
export function shardFiles(pattern: string, where: string): string[] {
  if (isShardUrl(pattern)) return shardUrls(pattern, where);
  const found = new Set<string>();
  for (const one of expandBraces(pattern)) {
    if (isPattern(one)) {
      const shards = matchFiles(one, where).filter((f) => !f.endsWith(INDEX_SUFFIX));
      if (shards.length === 0) throw new DataError(`${where}: ${one} matches only record indexes (${INDEX_SUFFIX}), no shard`, 'check the pattern');
      for (const f of shards) found.add(f);
    } else if (fs.existsSync(one)) found.add(one);
    else
      throw new DataError(
        `${where}: shard ${one} not found${one === pattern ? '' : ` (of ${pattern})`}`,
        'check the name, and the brace range: {00000..00099} expands to 00000, 00001, ... 00099',
      );
  }
  return [...found].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
