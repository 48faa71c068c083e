// `mgpu-train shards`' writer: the images of a folder or list (write-images.ts), in their index
// order or a seeded shuffle of it, into shard files of one format (write-tfrecord.ts,
// write-tar.ts). A shard is closed before a sample would take it past --shard-size (a sample
// larger than that alone gets a shard of its own) or when it holds --shard-samples. Each shard
// is written under a hidden temporary name and renamed when all are complete (TFRecord's names
// carry the count), then shards.json; an error or an interrupt leaves no file that looks whole.
import fs from 'node:fs';
import path from 'node:path';
import { mulberry32, permutation, streamState } from '../../shared/rng.ts';
import type { ShardFormat, ShardSample } from './write-format.ts';
import { imageSet, readImage, type ImageCheck, type ImageSet, type ReadImage } from './write-images.ts';
import { writeManifest, type ShardEntry, type ShardsManifest } from './write-manifest.ts';
import { checkOutDir, TEMP_SUFFIX } from './write-out-dir.ts';

const TAG_SHARDS = 0x53484152; // 'SHAR': the shuffle's stream (shared/rng.ts: never reuse a tag)
const READ_AHEAD = 8; // images read and checked while earlier ones are written

export interface ShardOptions {
  format: ShardFormat;
  outDir: string;
  prefix: string;
  maxBytes: number | null;
  maxSamples: number | null;
  seed: number | null; // null: the index order
  check: ImageCheck;
  force: boolean;
  arguments: Record<string, unknown>;
  say: (line: string) => void;
}

interface OpenShard {
  temp: string;
  fd: number;
  entry: ShardEntry;
}

/** The samples' order: the index order, or its seeded permutation. */
function sampleOrder(n: number, seed: number | null): Uint32Array {
  return seed === null ? Uint32Array.from({ length: n }, (_, i) => i) : permutation(mulberry32(streamState(TAG_SHARDS, seed)), n);
}

function writeAll(fd: number, chunks: Buffer[]): void {
  for (const c of chunks) for (let at = 0; at < c.length;) at += fs.writeSync(fd, c, at, c.length - at);
}

/** Images read `READ_AHEAD` ahead of the one asked for, in `order`. */
function readAhead(set: ImageSet, order: Uint32Array, check: ImageCheck): (k: number) => Promise<ReadImage> {
  const pending = new Map<number, Promise<ReadImage>>();
  const start = (k: number) => {
    if (k >= order.length || pending.has(k)) return;
    const p = readImage(set, order[k]!, check);
    p.catch(() => {}); // awaited in its turn; an early failure is not an unhandled rejection
    pending.set(k, p);
  };
  return (k) => {
    for (let j = k; j < k + READ_AHEAD; j++) start(j);
    const p = pending.get(k)!;
    pending.delete(k);
    return p;
  };
}

export async function writeShards(source: string, o: ShardOptions): Promise<ShardsManifest> {
  const replaced = checkOutDir(o.outDir, o.force); // refused before the images are indexed
  const set = imageSet(source);
  fs.mkdirSync(o.outDir, { recursive: true });
  const n = set.index.paths.count;
  const order = sampleOrder(n, o.seed);
  const width = Math.max(6, String(n - 1).length);
  const done: OpenShard[] = [];
  let open: OpenShard | null = null;
  const close = (s: OpenShard): null => {
    writeAll(s.fd, [o.format.trailer]);
    s.entry.bytes += o.format.trailer.length;
    fs.closeSync(s.fd);
    o.say(`shard ${done.length + 1}: ${s.entry.records.toLocaleString('en-US')} images, ${s.entry.bytes.toLocaleString('en-US')} bytes`);
    done.push(s);
    return null;
  };
  const next = readAhead(set, order, o.check);
  try {
    for (let k = 0; k < n; k++) {
      const i = order[k]!;
      const img = await next(k);
      const chunks = o.format.encode(sampleOf(set, i, k, width, img));
      const size = chunks.reduce((s, c) => s + c.length, 0);
      if (open && (full(open, size, o) || open.entry.records === o.maxSamples)) open = close(open);
      open ??= openShard(o, done.length, k);
      writeAll(open.fd, chunks);
      open.entry.records++;
      open.entry.bytes += size;
    }
    if (open) open = close(open);
    const ours = new Set(done.map((s) => s.temp));
    for (const f of replaced) if (!ours.has(f)) fs.rmSync(f, { force: true });
    for (const [index, s] of done.entries()) {
      s.entry.file = o.format.fileName(o.prefix, index, done.length);
      fs.renameSync(s.temp, path.join(o.outDir, s.entry.file));
    }
  } catch (err) {
    if (open) fs.closeSync(open.fd);
    for (const s of [...done, ...(open ? [open] : [])]) fs.rmSync(s.temp, { force: true });
    throw err;
  }
  const manifest = manifestOf(source, set, o, n, done);
  writeManifest(o.outDir, manifest);
  return manifest;
}

/** Whether `size` more bytes (and the shard's trailer) would take the shard past --shard-size. */
function full(s: OpenShard, size: number, o: ShardOptions): boolean {
  return o.maxBytes !== null && s.entry.bytes + size + o.format.trailer.length > o.maxBytes;
}

function openShard(o: ShardOptions, index: number, first: number): OpenShard {
  const temp = path.join(o.outDir, `.${o.prefix}-${String(index).padStart(5, '0')}.${o.format.name}.${process.pid}${TEMP_SUFFIX}`);
  return { temp, fd: fs.openSync(temp, 'w'), entry: { file: '', records: 0, first, bytes: 0 } };
}

function sampleOf(set: ImageSet, i: number, k: number, width: number, img: ReadImage): ShardSample {
  const label = set.index.labels[i]!;
  const filename = set.index.paths.relative(i);
  return { number: k, key: String(k).padStart(width, '0'), ...img, label, className: set.index.classes[label]!, filename };
}

function manifestOf(source: string, set: ImageSet, o: ShardOptions, n: number, done: OpenShard[]): ShardsManifest {
  return {
    createdBy: 'mgpu-train shards',
    version: 1,
    format: o.format.name,
    source: path.resolve(source),
    sourceKind: set.kind,
    samples: n,
    classes: set.index.classes,
    order:
      o.seed !== null ? `shuffled, seed ${o.seed}` : set.kind === 'folder' ? 'by class, then path, as type: images indexes the folder' : "the list's order",
    holds: o.format.describes,
    shards: done.map((s) => s.entry),
    arguments: o.arguments,
  };
}
