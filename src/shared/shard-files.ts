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

/** The shard files of `pattern`, sorted; none, or a named file missing, is a DataError naming `where`. */
export function shardFiles(pattern: string, where: string): string[] {
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
