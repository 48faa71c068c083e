// One pass over a WebDataset tar shard: its members grouped into samples, each sample checked for
// its image part (the first of the source's image extensions it has) and its label part (a .cls:
// the class index as decimal text, read now), and the image member's data offset and length and
// the label kept, as a TFRecord scan keeps a record's. Members of unknown extensions are counted.
// Whatever is wrong is a DataError naming the shard and the sample key, found before the first step.
import fs from 'node:fs';
import { DataError } from '../../shared/errors.ts';
import type { RecordIndex } from './index-file.ts';
import { scanFile, type Scan } from './scan-reads.ts';
import { forEachMember, read, type TarMember } from './tar-members.ts';
import { SampleGrouper, splitName, type TarSample } from './tar-samples.ts';

/** The parts a webdataset source reads: its image extensions (the first present is taken) and its label's. */
export interface TarKeys {
  image: string[];
  label: string;
}

const REWRITE = 'write the shard again with one image and one label part per sample (or leave it out of files:)';

/** Indexes the tar shard `file` (of `size` bytes): one entry per sample, in order. */
export function scanTarShard(file: string, size: number, keys: TarKeys): RecordIndex {
  const fd = fs.openSync(file, 'r');
  try {
    return scanFile(tarScan(file, size, keys), fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The scan of a tar shard `file` of `size` bytes (scan-reads.ts: over a file or a stream). A
 * label member's text is read as the scan passes it (a stream cannot go back to it once its
 * sample is complete), and checked with its sample.
 */
export function* tarScan(file: string, size: number, keys: TarKeys): Scan<RecordIndex> {
  if (size === 0) throw new DataError(`shard ${file} is empty (0 bytes): it holds no samples`, 'remove it from files:, or write it again');
  const head = yield { position: 0, length: 2 };
  if (head[0] === 0x1f && head[1] === 0x8b)
    throw new DataError(
      `shard ${file} is gzip-compressed (it starts with gzip's magic bytes 1f 8b, as a .tar.gz or .tgz does): compressed tar shards are not read`,
      'decompress it (gunzip, or tar without z) and point files: at the plain .tar files: each sample is read by its offset, which a gzip stream has not',
    );
  const samples: Array<{ image: TarMember; label: number }> = [];
  const labelText = new Map<TarMember, Uint8Array>();
  let unknown = 0;
  const grouper = new SampleGrouper(
    file,
    (s) => samples.push(checked(file, s, keys, labelText)),
    () => unknown++,
  );
  yield* forEachMember(file, size, function* (m) {
    if (splitName(m.name).part === keys.label && m.size <= LABEL_BYTES) labelText.set(m, yield* read(file, m.offset, m.size));
    grouper.add(m);
  });
  grouper.end();
  if (samples.length === 0)
    throw new DataError(`shard ${file} holds no samples (a tar file with no members of a known extension)`, 'remove it from files:, or write it again');
  return {
    count: samples.length,
    offsets: Float64Array.from(samples, (s) => s.image.offset),
    lengths: Uint32Array.from(samples, (s) => s.image.size),
    labels: Int32Array.from(samples, (s) => s.label),
    unknown,
  };
}

/** The most bytes of a .cls member. */
const LABEL_BYTES = 64;

/** A sample's image member and label, its parts checked. */
function checked(file: string, s: TarSample, keys: TarKeys, labelText: Map<TarMember, Uint8Array>): { image: TarMember; label: number } {
  const where = `shard ${file} sample ${s.key}`;
  const has = [...s.parts.keys()].map((p) => `.${p}`).join(' ');
  const image = keys.image.map((e) => s.parts.get(e)).find((m) => m !== undefined);
  if (!image) throw new DataError(`${where}: it has no image part (${keys.image.map((e) => `.${e}`).join(' or ')}; it has ${has})`, REWRITE);
  if (image.size > 0xffffffff) throw new DataError(`${where}: its image ${image.name} is ${image.size} bytes (more than 4 GiB)`, REWRITE);
  const cls = s.parts.get(keys.label);
  if (!cls) throw new DataError(`${where}: it has no label part (.${keys.label}; it has ${has})`, REWRITE);
  const label = classIndex(labelText.get(cls), where, cls);
  for (const m of s.parts.values()) labelText.delete(m);
  return { image, label };
}

/** The class index in a .cls member (`data`: its bytes, read when it was no larger than LABEL_BYTES): decimal text, a non-negative integer. */
function classIndex(data: Uint8Array | undefined, where: string, m: TarMember): number {
  if (m.size > LABEL_BYTES || data === undefined)
    throw new DataError(`${where}: its label ${m.name} is ${m.size} bytes, not a class index`, 'a .cls member holds the class index as decimal text, e.g. "7"');
  const text = new TextDecoder().decode(data).trim();
  if (!/^\d+$/.test(text) || Number(text) > 0x7fffffff)
    throw new DataError(
      `${where}: its label ${m.name} holds ${JSON.stringify(text)}, not a non-negative integer`,
      'a .cls member holds the class index as decimal text, e.g. "7"',
    );
  return Number(text);
}
