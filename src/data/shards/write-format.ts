// What a shard format gives the shard writer (write-shards.ts): the bytes one sample becomes in a
// shard, the bytes that end a shard, and the shard files' names. TFRecord (write-tfrecord.ts)
// and WebDataset tar (write-tar.ts) are the two.

/** One image on its way into a shard. */
export interface ShardSample {
  number: number; // its place in the written order, 0-based, running across shards
  key: string; // that number zero-padded, the same width for every sample of the run
  bytes: Buffer; // the image file's bytes, as they are
  ext: string; // the file's extension, lower case, without the dot (jpg, png, webp, ...)
  format: string; // what the decoder read it as (jpeg, png, webp, gif, tiff, heif)
  label: number; // class index, 0-based
  className: string;
  filename: string; // its path relative to the folder (or as the list gives it)
  mtime: number; // the file's modification time, seconds
}

export interface ShardFormat {
  name: 'tfrecord' | 'webdataset';
  /** The bytes `s` becomes in a shard (their total counts against --shard-size). */
  encode(s: ShardSample): Buffer[];
  /** The bytes that close a shard (a tar's two zero blocks), counted against --shard-size too. */
  trailer: Buffer;
  /** Shard `index` of `count` (0-based), as its file is named once complete. */
  fileName(prefix: string, index: number, count: number): string;
  /** Whether a file name is one of this format's shards (of any prefix), for the out dir's check. */
  isShard(name: string): boolean;
  /** What each sample holds, for shards.json. */
  describes: Record<string, string>;
}
