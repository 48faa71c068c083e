// data.<split> with type: tfrecord: TFRecord shards of tf.train.Example records (files: a file, a
// glob or a brace range, at least one shard found), and either the feature keys of the image
// (bytes) and the label (int64 class index, plus labelOffset) with the image decoding keys of
// type: images, or x and y: the model's input and output names to a feature key and a shape.
import { resolve } from 'node:path';
import { ConfigError, DataError } from '../../shared/errors.ts';
import { fail, int, isMapping, Section, text } from '../checker.ts';
import { isShardUrl, shardFiles } from '../../shared/shard-files.ts';
import type { ShardHttpOptions, TfrecordFeatures, TfrecordSource } from '../types.ts';
import { shardHttp } from './shard-http.ts';
import { IMAGE_DECODE_KEYS, imageDecoding } from './images.ts';
import { SHARD_ORDER_KEYS, shardOrderOf } from './shard-order.ts';

export const TFRECORD_SOURCE_KEYS = ['type', 'files', 'image', 'label', 'labelOffset', 'http', ...SHARD_ORDER_KEYS, ...IMAGE_DECODE_KEYS] as const;
const FEATURE_SOURCE_KEYS = ['type', 'files', 'x', 'y', 'http'] as const;

/** One tfrecord source. */
export function tfrecordSource(raw: Record<string, unknown>, path: string, baseDir: string): TfrecordSource {
  if (Object.hasOwn(raw, 'x') || Object.hasOwn(raw, 'y')) {
    const s = Section.open(raw, path, FEATURE_SOURCE_KEYS);
    return { type: 'tfrecord', files: files(s, baseDir), x: features(s, 'x', 'input'), y: features(s, 'y', 'output'), ...withHttp(s) };
  }
  const s = Section.open(raw, path, TFRECORD_SOURCE_KEYS);
  return {
    type: 'tfrecord',
    files: files(s, baseDir),
    image: s.req('image', text),
    label: s.req('label', text),
    labelOffset: s.opt('labelOffset', int(-1_000_000, 1_000_000), 0),
    ...imageDecoding(s),
    ...withHttp(s),
    ...shardOrderOf(s),
  };
}

/** { http } where the source gives data.<split>.http, else nothing (the loader's defaults). */
export function withHttp(s: Section): { http?: ShardHttpOptions } {
  const http = shardHttp(s);
  return http ? { http } : {};
}

/** A source's shard pattern (its `key`), resolved against baseDir, at least one shard found; http(s):// URLs as they are (their braces expanded, no glob). */
export function files(s: Section, baseDir: string, key = 'files'): string {
  const given = s.req(key, text);
  const pattern = isShardUrl(given) ? given : resolve(baseDir, given);
  try {
    shardFiles(pattern, s.at(key));
  } catch (err) {
    if (!(err instanceof DataError)) throw err;
    throw new ConfigError(s.at(key), err.message.replace(`${s.at(key)}: `, ''), `relative paths are resolved against ${baseDir}; ${err.hint ?? ''}`);
  }
  return pattern;
}

const shapeCheck = {
  expected: 'a list of positive integers, the shape of one sample ([] for one value)',
  test: (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isSafeInteger(x) && (x as number) >= 1),
};

/** x or y: the model's input (output) names, each to { key, shape }. */
function features(s: Section, side: 'x' | 'y', what: string): TfrecordFeatures {
  const v = s.req(side, { expected: `a mapping of the model's ${what} names to { key, shape }`, test: isMapping });
  const names = Object.keys(v);
  if (names.length === 0) fail(s.at(side), `a mapping of the model's ${what} names to { key, shape }`, v);
  const out: TfrecordFeatures = {};
  for (const name of names) {
    const f = Section.open(v[name], `${s.at(side)}.${name}`, ['key', 'shape']);
    out[name] = { key: f.req('key', text), shape: [...f.req('shape', shapeCheck)] };
  }
  return out;
}
