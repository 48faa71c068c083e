// `mgpu-train shards`' writer: the images of a folder or list (write-images.ts), in their index
// order or a seeded shuffle of it, into shard files of one format (write-tfrecord.ts,
// write-tar.ts). A shard is closed before a sample would take it past --shard-size (a sample
// larger than that alone gets a shard of its own) or when it holds --shard-samples. Each shard
// is written under a hidden temporary name and renamed when all are complete (TFRecord's names
// carry the count), then shards.json; an error leaves no file that looks whole, and an interrupt
// (SIGINT, SIGTERM, SIGHUP) none at all: the temporary files are removed before the process ends.
// An image that cannot be read or decoded is left out and listed (said at the end, and in
// shards.json's `skipped`), as dataset writers do; with `strict` the first one is an error.
import fs from 'node:fs';
import path from 'node:path';
import { mulberry32, permutation, streamState } from '../../shared/rng.ts';
import type { ShardFormat, ShardSample } from './write-format.ts';
import { DataError } from '../../shared/errors.ts';
import { BAD_IMAGE_HINT, imageSet, readImage, type ImageCheck, type ImageSet, type ReadImage } from './write-images.ts';
import { writeManifest, type ShardEntry, type ShardsManifest } from './write-manifest.ts';
import { checkOutDir, checkOutsideSource, TEMP_SUFFIX } from './write-out-dir.ts';

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
  strict: boolean; // the first image that cannot be read stops the run (else it is left out and listed)
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

/** Images read `READ_AHEAD` ahead of the one asked for, in `order`: each its bytes, or the DataError that says why it cannot be read. */
function readAhead(set: ImageSet, order: Uint32Array, check: ImageCheck): (k: number) => Promise<ReadImage | DataError> {
  const pending = new Map<number, Promise<ReadImage | DataError>>();
  const start = (k: number) => {
    if (k >= order.length || pending.has(k)) return;
    pending.set(
      k,
      readImage(set, order[k]!, check).catch((err: unknown) => {
        if (err instanceof DataError) return err;
        throw err;
      }),
    );
  };
  return (k) => {
    for (let j = k; j < k + READ_AHEAD; j++) start(j);
    const p = pending.get(k)!;
    pending.delete(k);
    return p;
  };
}

export async function writeShards(source: string, o: ShardOptions): Promise<ShardsManifest> {
  checkOutsideSource(source, o.outDir);
  const replaced = checkOutDir(o.outDir, o.force); // refused before the images are indexed
  const set = imageSet(source);
  fs.mkdirSync(o.outDir, { recursive: true });
  const n = set.index.paths.count;
  const order = sampleOrder(n, o.seed);
  const width = Math.max(6, String(n - 1).length);
  const done: OpenShard[] = [];
  const skipped: SkippedImage[] = [];
  let open: OpenShard | null = null;
  let written = 0;
  const close = (s: OpenShard): null => {
    writeAll(s.fd, [o.format.trailer]);
    s.entry.bytes += o.format.trailer.length;
    fs.closeSync(s.fd);
    o.say(
      `shard ${done.length + 1}: ${s.entry.records.toLocaleString('en-US')} image${s.entry.records === 1 ? '' : 's'}, ${s.entry.bytes.toLocaleString('en-US')} bytes`,
    );
    done.push(s);
    return null;
  };
  const removeTemps = () => {
    if (open) fs.closeSync(open.fd);
    for (const s of [...done, ...(open ? [open] : [])]) fs.rmSync(s.temp, { force: true });
  };
  const next = readAhead(set, order, o.check);
  const stopOnSignal = onInterrupt(() => {
    removeTemps();
    return `shards: interrupted: the ${done.length + (open ? 1 : 0)} unfinished shard file${done.length + (open ? 1 : 0) === 1 ? '' : 's'} removed; ${o.outDir} holds what it held before`;
  });
  try {
    for (let k = 0; k < n; k++) {
      const i = order[k]!;
      const img = await next(k);
      if (img instanceof DataError) {
        if (o.strict) throw new DataError(img.message, `${img.hint ?? ''} (or leave out --strict: such images are left out and listed)`.trim());
        skipped.push({ file: set.index.paths.relative(i), why: img.message });
        o.say(`skipped ${set.index.paths.file(i)}: ${img.message}`);
        continue;
      }
      const chunks = o.format.encode(sampleOf(set, i, written, width, img));
      const size = chunks.reduce((s, c) => s + c.length, 0);
      if (open && (full(open, size, o) || open.entry.records === o.maxSamples)) open = close(open);
      open ??= openShard(o, done.length, written);
      writeAll(open.fd, chunks);
      open.entry.records++;
      open.entry.bytes += size;
      written++;
    }
    if (open) open = close(open);
    if (written === 0) throw noImageRead(source, skipped);
    const ours = new Set(done.map((s) => s.temp));
    for (const f of replaced) if (!ours.has(f)) fs.rmSync(f, { force: true });
    for (const [index, s] of done.entries()) {
      s.entry.file = o.format.fileName(o.prefix, index, done.length);
      fs.renameSync(s.temp, path.join(o.outDir, s.entry.file));
    }
  } catch (err) {
    removeTemps();
    throw err;
  } finally {
    stopOnSignal();
  }
  const manifest = manifestOf(source, set, o, written, done, skipped);
  writeManifest(o.outDir, manifest);
  if (skipped.length > 0) o.say(describeSkipped(skipped));
  return manifest;
}

/** An image left out: its path (relative to the folder, or as the list gives it) and why. */
export interface SkippedImage {
  file: string;
  why: string;
}

/** The end's list of images left out. */
function describeSkipped(skipped: readonly SkippedImage[]): string {
  const lines = skipped.map((s) => `  ${s.file}: ${s.why}`);
  return [`left out ${skipped.length} image${skipped.length === 1 ? '' : 's'} that cannot be read (listed in shards.json's skipped):`, ...lines].join('\n');
}

function noImageRead(source: string, skipped: readonly SkippedImage[]): DataError {
  return new DataError(`shards: none of the ${skipped.length} images of ${source} can be read (the first: ${skipped[0]?.why ?? 'none'})`, BAD_IMAGE_HINT);
}

/**
 * Runs `cleanup` on SIGINT, SIGTERM or SIGHUP, says what it returns, and ends the process as the
 * signal would (128 + its number); returns what stops listening.
 */
function onInterrupt(cleanup: () => string): () => void {
  const codes = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
  const handlers = (Object.keys(codes) as Array<keyof typeof codes>).map((sig) => {
    const h = () => {
      const said = cleanup();
      process.stderr.write(`${said}\n`);
      process.exit(codes[sig]);
    };
    process.once(sig, h);
    return [sig, h] as const;
  });
  return () => {
    for (const [sig, h] of handlers) process.removeListener(sig, h);
  };
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

function manifestOf(source: string, set: ImageSet, o: ShardOptions, n: number, done: OpenShard[], skipped: SkippedImage[]): ShardsManifest {
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
    skipped,
    arguments: o.arguments,
  };
}
