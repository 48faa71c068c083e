// TFRecord shards of images, as TF-slim's and build_imagenet_data.py's conversion scripts write
// them: files <prefix>-00000-of-00004.tfrecord, each record one tf.train.Example (write-example.ts)
// with image/encoded (the file's bytes, not re-encoded), image/format, image/class/label (int64,
// 0-based), image/class/text and image/filename. Framed as TensorFlow frames a record: uint64
// length (LE), masked CRC-32C of it, the data, masked CRC-32C of the data; the framing is the one
// the TensorBoard event files are written with (shared/tfrecord-frame.ts), not a second copy.
import { tfRecord } from '../../shared/tfrecord-frame.ts';
import { encodeExample } from './write-example.ts';
import type { ShardFormat, ShardSample } from './write-format.ts';

/** The serialized Example of one image. */
export function imageExample(s: ShardSample): Buffer {
  return encodeExample([
    ['image/encoded', { bytes: s.bytes }],
    ['image/format', { bytes: Buffer.from(s.format) }],
    ['image/class/label', { int64: s.label }],
    ['image/class/text', { bytes: Buffer.from(s.className) }],
    ['image/filename', { bytes: Buffer.from(s.filename) }],
  ]);
}

const pad5 = (n: number) => String(n).padStart(5, '0');

export const TFRECORD_FORMAT: ShardFormat = {
  name: 'tfrecord',
  encode: (s) => [tfRecord(imageExample(s))],
  trailer: Buffer.alloc(0),
  fileName: (prefix, index, count) => `${prefix}-${pad5(index)}-of-${pad5(count)}.tfrecord`,
  isShard: (name) => /-\d{5,}-of-\d{5,}(\.tfrecord)?$/.test(name) || name.endsWith('.tfrecord'),
  describes: {
    'image/encoded': 'bytes: the image file, as it is',
    'image/format': 'bytes: jpeg, png, webp, gif, tiff or heif',
    'image/class/label': 'int64: the class index, 0-based, into classes',
    'image/class/text': 'bytes: the class name',
    'image/filename': "bytes: the image's path, relative to the folder (or as the list gives it)",
  },
};
