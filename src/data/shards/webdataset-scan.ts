// One pass over a WebDataset tar shard: its members grouped into samples, each sample checked for
// its image part (the first of the source's image extensions it has) and its label part (a .cls:
// the class index as decimal text, read now), and the image member's data offset and length and
// the label kept, as a TFRecord scan keeps a record's. Members of unknown extensions are counted.
// Whatever is wrong is a DataError naming the shard and the sample key, found before the first step.
import fs from 'node:fs';
import { DataError } from '../../shared/errors.ts';
import { readFully } from '../../shared/read-fully.ts';
import type { RecordIndex } from './index-file.ts';
import { forEachMember, type TarMember } from './tar-members.ts';
import { SampleGrouper, type TarSample } from './tar-samples.ts';

/** The parts a webdataset source reads: its image extensions (the first present is taken) and its label's. */
export interface TarKeys {
  image: string[];
  label: string;
}

const REWRITE = 'write the shard again with one image and one label part per sample (or leave it out of shards:)';

/** Indexes the tar shard `file` (of `size` bytes): one entry per sample, in order. */
export function scanTarShard(file: string, size: number, keys: TarKeys): RecordIndex {
  if (size === 0) throw new DataError(`shard ${file} is empty (0 bytes): it holds no samples`, 'remove it from shards:, or write it again');
  const fd = fs.openSync(file, 'r');
  try {
    const samples: Array<{ image: TarMember; label: number }> = [];
    let unknown = 0;
    const grouper = new SampleGrouper(
      file,
      (s) => samples.push(checked(fd, file, s, keys)),
      () => unknown++,
    );
    forEachMember(fd, file, size, (m) => grouper.add(m));
    grouper.end();
    if (samples.length === 0)
      throw new DataError(`shard ${file} holds no samples (a tar file with no members of a known extension)`, 'remove it from shards:, or write it again');
    return {
      count: samples.length,
      offsets: Float64Array.from(samples, (s) => s.image.offset),
      lengths: Uint32Array.from(samples, (s) => s.image.size),
      labels: Int32Array.from(samples, (s) => s.label),
      unknown,
    };
  } finally {
    fs.closeSync(fd);
  }
}

/** A sample's image member and label, its parts checked. */
function checked(fd: number, file: string, s: TarSample, keys: TarKeys): { image: TarMember; label: number } {
  const where = `shard ${file} sample ${s.key}`;
  const has = [...s.parts.keys()].map((p) => `.${p}`).join(' ');
  const image = keys.image.map((e) => s.parts.get(e)).find((m) => m !== undefined);
  if (!image) throw new DataError(`${where}: it has no image part (${keys.image.map((e) => `.${e}`).join(' or ')}; it has ${has})`, REWRITE);
  if (image.size > 0xffffffff) throw new DataError(`${where}: its image ${image.name} is ${image.size} bytes (more than 4 GiB)`, REWRITE);
  const cls = s.parts.get(keys.label);
  if (!cls) throw new DataError(`${where}: it has no label part (.${keys.label}; it has ${has})`, REWRITE);
  return { image, label: classIndex(fd, file, where, cls) };
}

/** The class index in a .cls member: decimal text, a non-negative integer. */
function classIndex(fd: number, file: string, where: string, m: TarMember): number {
  if (m.size > 64)
    throw new DataError(`${where}: its label ${m.name} is ${m.size} bytes, not a class index`, 'a .cls member holds the class index as decimal text, e.g. "7"');
  const data = new Uint8Array(m.size);
  readFully(fd, data, m.offset, { file, why: 'it shrank while it was indexed', error: (msg) => new DataError(msg) });
  const text = new TextDecoder().decode(data).trim();
  if (!/^\d+$/.test(text) || Number(text) > 0x7fffffff)
    throw new DataError(
      `${where}: its label ${m.name} holds ${JSON.stringify(text)}, not a non-negative integer`,
      'a .cls member holds the class index as decimal text, e.g. "7"',
    );
  return Number(text);
}
