// data.<split> with type: tfrecord: TFRecord shards of tf.train.Example records (files: a file, a
// glob or a brace range, at least one shard found), the feature keys of the image (bytes) and the
// label (int64 class index, plus labelOffset), and the image decoding keys of type: images.
import { resolve } from 'node:path';
import { ConfigError, DataError } from '../../errors.ts';
import { int, Section, text } from '../checker.ts';
import { shardFiles } from '../../shard-files.ts';
import type { TfrecordSource } from '../types.ts';
import { IMAGE_DECODE_KEYS, imageDecoding } from './images.ts';

export const TFRECORD_SOURCE_KEYS = ['type', 'files', 'image', 'label', 'labelOffset', ...IMAGE_DECODE_KEYS] as const;

/** One tfrecord source. */
export function tfrecordSource(raw: Record<string, unknown>, path: string, baseDir: string): TfrecordSource {
  const s = Section.open(raw, path, TFRECORD_SOURCE_KEYS);
  const files = resolve(baseDir, s.req('files', text));
  try {
    shardFiles(files, s.at('files'));
  } catch (err) {
    if (!(err instanceof DataError)) throw err;
    throw new ConfigError(s.at('files'), err.message.replace(`${s.at('files')}: `, ''), `relative paths are resolved against ${baseDir}; ${err.hint ?? ''}`);
  }
  return {
    type: 'tfrecord',
    files,
    image: s.req('image', text),
    label: s.req('label', text),
    labelOffset: s.opt('labelOffset', int(-1_000_000, 1_000_000), 0),
    ...imageDecoding(s),
  };
}
