// A shard's indexing scan written once for a local file and a stream: the scan (index-scan.ts,
// webdataset-scan.ts) is a generator that yields each read it needs ({ position, length }) and is
// given the bytes (fewer than asked only where the shard ends), so its checks are the same code
// whether the bytes come from pread on an open file (scanFile) or from one streaming GET of a URL
// (scanStream). A scan's reads never go back before the start of the one before: a stream keeps
// only the bytes from the last read on.
import fs from 'node:fs';
import { MgpuError } from '../../shared/errors.ts';
import { MAX_IO, type FileEnded } from '../../shared/read-fully.ts';

/** A read a scan asks for. */
export interface ReadAsk {
  position: number;
  length: number;
}

/** A scan: yields its reads, is given their bytes, returns what it found. */
export type Scan<T> = Generator<ReadAsk, T, Uint8Array>;

/** Exactly `length` bytes at `position`; a shard that ends first throws `ended.error(...)` as readFully does. */
export function* readExactly(position: number, length: number, ended: FileEnded): Scan<Uint8Array> {
  const got = yield { position, length };
  if (got.length < length) throw ended.error(`${ended.file}: the file ended at byte ${position + got.length} (${ended.why})`);
  return got;
}

/** Bytes read from a file at once for a scan's small reads (a record's header, its data). */
const BLOCK = 1 << 20;

/**
 * Runs `scan` over the open file `fd`: its reads are served from blocks of BLOCK bytes read ahead
 * (a scan reads forward: a million records' 2 million small reads are 128 preads a 128 MiB shard,
 * not 2 million); a read longer than a block is read by itself.
 */
export function scanFile<T>(scan: Scan<T>, fd: number): T {
  let block: Uint8Array = new Uint8Array(0);
  let blockAt = 0; // the file position of block[0]
  let next = scan.next();
  while (!next.done) {
    const { position, length } = next.value;
    if (position < blockAt || position + length > blockAt + block.length) {
      if (length > BLOCK) {
        next = scan.next(readAt(fd, position, length));
        continue;
      }
      block = readAt(fd, position, BLOCK);
      blockAt = position;
    }
    const from = position - blockAt;
    next = scan.next(block.slice(from, Math.min(block.length, from + length)));
  }
  return next.value;
}

/** Up to `length` bytes at `position` (fewer only where the file ends). */
function readAt(fd: number, position: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const n = fs.readSync(fd, bytes, done, Math.min(MAX_IO, length - done), position + done);
    if (n === 0) break;
    done += n;
  }
  return done === length ? bytes : bytes.subarray(0, done);
}

/** Runs `scan` over the bytes of a shard from its first, as `chunks` give them (a GET's body). */
export async function scanStream<T>(scan: Scan<T>, chunks: AsyncIterable<Uint8Array>, shard: string): Promise<T> {
  const source = chunks[Symbol.asyncIterator]();
  let window: Buffer = Buffer.alloc(0); // the bytes from `base` on that have come
  let base = 0;
  let ended = false;
  let next = scan.next();
  while (!next.done) {
    const { position, length } = next.value;
    if (position < base)
      throw new MgpuError('E_INTERNAL', `the index scan of ${shard} read back to byte ${position}, before byte ${base} (a stream reads forward only)`);
    const drop = Math.min(position - base, window.length);
    window = window.subarray(drop);
    base += drop;
    while (!ended && base + window.length < position + length) {
      const r = await source.next();
      if (r.done) {
        ended = true;
        break;
      }
      const chunk = Buffer.from(r.value.buffer, r.value.byteOffset, r.value.length);
      if (base + window.length + chunk.length <= position) {
        base += window.length + chunk.length; // all before the read: passed over
        window = Buffer.alloc(0);
        continue;
      }
      window = window.length === 0 ? chunk : Buffer.concat([window, chunk]);
      if (base < position) {
        window = window.subarray(position - base); // the part of it before the read: passed over
        base = position;
      }
    }
    const from = position - base;
    next = scan.next(new Uint8Array(window.subarray(from, from + length)));
  }
  await source.return?.();
  return next.value;
}
