// data.train.order of a shard source (tfrecord images, webdataset): `random` (the default: the
// seeded global permutation, every record at random) or `shards` (src/data/shard-order.ts: the
// shards shuffled, then `openShards` of them at a time, default 4, their samples shuffled among
// themselves). Only data.train has an order: an evaluation reads its split in order.
import { ConfigError } from '../../shared/errors.ts';
import { int, oneOf, type Section } from '../checker.ts';

export const SHARD_ORDER_KEYS = ['order', 'openShards'] as const;
const OPEN_SHARDS = 4;

/** { order, openShards } of a shard source: openShards only with order: shards. */
export function shardOrderOf(s: Section): { order: 'random' } | { order: 'shards'; openShards: number } {
  const order = s.opt('order', oneOf(['random', 'shards'] as const), 'random');
  if (order === 'random') {
    if (s.has('openShards')) throw new ConfigError(s.at('openShards'), 'applies to order: shards only', `set ${s.at('order')}: shards, or remove openShards`);
    return { order };
  }
  if (s.path !== 'data.train')
    throw new ConfigError(
      s.at('order'),
      'only data.train has an order',
      `an evaluation reads ${s.path} in order: remove ${s.at('order')}, or set it to random`,
    );
  return { order, openShards: s.opt('openShards', int(1, 1_000_000), OPEN_SHARDS) };
}
