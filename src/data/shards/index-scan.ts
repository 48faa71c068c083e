// One sequential pass over a TFRecord shard: every record's framing and both checksums verified,
// its Example decoded and checked for the source's feature keys (the image a bytes feature, the
// label one int64; or each x / y feature with its count of values), and its offset, length and
// label kept in growing typed arrays. Whatever is wrong is a DataError naming the shard and the
// record, found before the first step. The scan is a generator of its reads (scan-reads.ts): the
// same checks over a local file and over a URL's streamed bytes.
import fs from 'node:fs';
import { DataError } from '../../shared/errors.ts';
import { exampleFeatures, type RecordKeys } from './record-features.ts';
import { featureValues } from './feature-values.ts';
import type { RecordIndex } from './index-file.ts';
import { readExactly, scanFile, type Scan } from './scan-reads.ts';
import { checkData, FOOTER_BYTES, HEADER_BYTES, recordAt, recordLength } from './tfrecord-framing.ts';

const GZIP_MAGIC = [0x1f, 0x8b];

/** Indexes `file` (of `size` bytes), checking each record for `keys`: arrays of exactly its record count. */
export function scanShard(file: string, size: number, keys: RecordKeys): RecordIndex {
  const fd = fs.openSync(file, 'r');
  try {
    return scanFile(tfrecordScan(file, size, keys), fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The scan of a TFRecord shard `file` of `size` bytes (scan-reads.ts: over a file or a stream). */
export function* tfrecordScan(file: string, size: number, keys: RecordKeys): Scan<RecordIndex> {
  yield* refuseUnframed(file, size);
  let cap = 1024;
  let index: RecordIndex = { count: 0, offsets: new Float64Array(cap), lengths: new Uint32Array(cap), labels: new Int32Array(cap) };
  for (let at = 0, n = 0; at < size; n++) {
    const header = yield { position: at, length: HEADER_BYTES };
    const length = recordLength(header, file, n, at, size);
    if (length > 0xffffffff)
      throw new DataError(`${recordAt(file, n, at)}: a record of ${length} bytes (more than 4 GiB)`, 'split it: a record holds one sample');
    const body = yield* readExactly(at + HEADER_BYTES, length + FOOTER_BYTES, { file, why: 'it shrank while it was indexed', error: (m) => new DataError(m) });
    checkData(body.subarray(0, length), body.subarray(length), file, n, at);
    if (n === cap) index = grow(index, (cap *= 2));
    index.offsets[n] = at;
    index.lengths[n] = length;
    index.labels[n] = labelOf(body.subarray(0, length), keys, file, n, at);
    index.count = n + 1;
    at += HEADER_BYTES + length + FOOTER_BYTES;
  }
  return trimmed(index);
}

/** An empty shard, or a compressed one, is refused by name. */
function* refuseUnframed(file: string, size: number): Scan<void> {
  if (size === 0) throw new DataError(`shard ${file} is empty (0 bytes): it holds no records`, 'remove it from files:, or write it again');
  const head = yield { position: 0, length: 2 };
  if (head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1])
    throw new DataError(
      `shard ${file} is GZIP-compressed (it starts with gzip's magic bytes 1f 8b): compressed TFRecord files are not supported`,
      'decompress it (gunzip, or write it with TFRecordOptions compression_type "") and point files: at the plain TFRecord files',
    );
}

function grow(i: RecordIndex, cap: number): RecordIndex {
  const offsets = new Float64Array(cap);
  const lengths = new Uint32Array(cap);
  const labels = new Int32Array(cap);
  offsets.set(i.offsets);
  lengths.set(i.lengths);
  labels.set(i.labels);
  return { count: i.count, offsets, lengths, labels };
}

/** The index trimmed to its count. */
function trimmed(i: RecordIndex): RecordIndex {
  return { count: i.count, offsets: i.offsets.slice(0, i.count), lengths: i.lengths.slice(0, i.count), labels: i.labels.slice(0, i.count) };
}

/** A record's label (0 for features), its keys checked. */
function labelOf(data: Uint8Array, keys: RecordKeys, file: string, n: number, at: number): number {
  if (!('features' in keys)) return exampleFeatures(data, keys, file, n, at).label;
  featureValues(data, keys.features, file, n, at);
  return 0;
}
