// data.<split> with type: webdataset: WebDataset tar shards (files: a file, a glob or a brace
// range, at least one shard found, as a tfrecord source's files:; `shards:` is another name for
// it, accepted as it was this key's first name), the extension of each sample's image part (or a list: the
// first present is taken), its label part (cls: the class index as decimal text, plus
// labelOffset) and the image decoding keys of type: images.
import { ConfigError } from '../../shared/errors.ts';
import { int, oneOf, Section } from '../checker.ts';
import type { WebdatasetSource } from '../types.ts';
import { IMAGE_DECODE_KEYS, imageDecoding } from './images.ts';
import { SHARD_ORDER_KEYS, shardOrderOf } from './shard-order.ts';
import { files, withHttp } from './tfrecord.ts';

export const WEBDATASET_SOURCE_KEYS = ['type', 'files', 'shards', 'image', 'label', 'labelOffset', 'http', ...SHARD_ORDER_KEYS, ...IMAGE_DECODE_KEYS] as const;
const IMAGE_PARTS = ['jpg', 'jpeg', 'png', 'webp'] as const;

const imageParts = {
  expected: `an image extension (${IMAGE_PARTS.join(', ')}) or a list of them`,
  test: (v: unknown): v is string | string[] =>
    (typeof v === 'string' || (Array.isArray(v) && v.length > 0)) && [v].flat().every((e) => (IMAGE_PARTS as readonly unknown[]).includes(e)),
};

/** One webdataset source. */
export function webdatasetSource(raw: Record<string, unknown>, path: string, baseDir: string): WebdatasetSource {
  const s = Section.open(raw, path, WEBDATASET_SOURCE_KEYS);
  const image = [s.req('image', imageParts)].flat();
  if (new Set(image).size < image.length)
    throw new ConfigError(s.at('image'), `lists an extension twice (${image.join(', ')})`, 'list each image extension once');
  return {
    type: 'webdataset',
    shards: files(s, baseDir, shardsKey(s)),
    image,
    label: s.opt('label', oneOf(['cls']), 'cls'),
    labelOffset: s.opt('labelOffset', int(-1_000_000, 1_000_000), 0),
    ...imageDecoding(s),
    ...withHttp(s),
    ...shardOrderOf(s),
  };
}

/** The key that names the shards: files, or its other name shards (not both). */
function shardsKey(s: Section): 'files' | 'shards' {
  if (s.has('files') && s.has('shards'))
    throw new ConfigError(s.at('shards'), 'is another name for files:, which is given too', 'give the shards once, under files:');
  return s.has('shards') ? 'shards' : 'files';
}
