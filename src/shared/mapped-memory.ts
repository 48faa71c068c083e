// The slab's fast path: the project's own N-API addon (native/src/mmap.c) maps the slab's
// descriptor MAP_SHARED and returns an ArrayBuffer over the shared pages, so a copy into the slab
// is one memcpy and the reduce reads gradients in place. When the addon is not built (no
// compiler at install time, another platform) or cannot work here (a runtime that refuses
// external ArrayBuffers), everything falls back to positional I/O (pread/pwrite), which is
// always correct: `mmapUnavailableReason` says why, for the coordinator to print once.
// Data files (.npy) are mapped private by the same addon and read only through its guarded
// `copyFrom` (see src/data/data-file-rows.ts): a file cut short is an error there, not SIGBUS.
//
// Each process and each worker thread maps the descriptor itself (the addon is context-aware and
// keeps no global state); a mapping is unmapped when its ArrayBuffer is garbage-collected or its
// thread exits. Never transfer a mapped ArrayBuffer to another thread (postMessage transfer
// list): map the descriptor again there.
import fs from 'node:fs';
import { MgpuError } from './errors.ts';
import { loadAddon } from './native-addon.ts';
import { MAX_IO, readFully } from './read-fully.ts';

/** What the addon offers once it has loaded and passed its probe. */
export interface MmapAddon {
  /**
   * Maps [offset, offset + length) of `fd` shared and read-write. Both must be multiples of
   * `pageSize()`, length > 0, and the file must reach the last page. Throws an Error with
   * `code` (EBADF, EACCES, ENODEV, ...) and `errno` when the system refuses.
   */
  map(fd: number, offset: number, length: number): ArrayBuffer;
  /**
   * The same, MAP_PRIVATE: for a data file opened read-only (an .npy read through the page
   * cache); a write to the buffer would stay in this process and never reach the file.
   */
  mapPrivate(fd: number, offset: number, length: number): ArrayBuffer;
  pageSize(): number;
  /**
   * posix_fallocate: makes the pages of [offset, offset + length) exist. On tmpfs, a store
   * through a mapping into a page that does not exist yet, when the filesystem is full, raises
   * SIGBUS and kills the process; after this, the shortage was an ENOSPC error here instead.
   */
  allocate(fd: number, offset: number, length: number): void;
  /**
   * Copies `count` runs out of `src` (a mapping of a data file from `mapPrivate`) into `into`:
   * run i is runs[3i] bytes from src offset runs[3i+1] to into offset runs[3i+2]. The copy runs
   * under a SIGBUS guard (a page past the file's end, the file cut short since it was mapped,
   * stops the copy instead of killing the process), then `fd`, the file's descriptor, is
   * fstat'ed. Returns -1 when the copy is good, else the byte at which the file now ends (short
   * of `fileBytes`, its size at start-up): what was copied is then not to be used.
   */
  copyFrom(into: Uint8Array, src: ArrayBuffer, runs: Float64Array, count: number, fd: number, fileBytes: number): number;
}

/** The binary's own surface (see native/src/mmap.c). */
interface RawAddon {
  map(fd: number, offset: number, length: number, isPrivate?: boolean): ArrayBuffer | null;
  pageSize(): number;
  allocate(fd: number, offset: number, length: number): void;
  externalBuffersAllowed(): boolean;
  copyFrom(into: Uint8Array, src: ArrayBuffer, runs: Float64Array, count: number, fd: number, fileBytes: number): number;
}

/** Why `loadMmap()` returned null (null while it has not been called or when the addon loaded). */
export let mmapUnavailableReason: string | null = null;
let loaded: MmapAddon | null | undefined;

/**
 * The addon for this thread, or null when it is not available (see `mmapUnavailableReason`).
 * Setting MGPU_MMAP=0 in the environment turns it off. Loads once per thread.
 */
export function loadMmap(): MmapAddon | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  if (process.platform === 'win32') {
    mmapUnavailableReason = 'the mmap addon is POSIX-only';
    return null;
  }
  if (/^(0|false|off|no)$/i.test(process.env.MGPU_MMAP ?? '')) {
    mmapUnavailableReason = `turned off by MGPU_MMAP=${process.env.MGPU_MMAP}`;
    return null;
  }
  const got = loadAddon<RawAddon>('mgpu_mmap', 'mmap', ['map', 'pageSize', 'allocate', 'externalBuffersAllowed', 'copyFrom']);
  if (!got.addon) {
    mmapUnavailableReason = got.reason;
    return null;
  }
  const raw = got.addon;
  if (!raw.externalBuffersAllowed()) {
    mmapUnavailableReason = `this runtime (Node ${process.version}) does not allow external ArrayBuffers (V8 sandbox)`;
    return null;
  }
  loaded = {
    pageSize: () => raw.pageSize(),
    allocate: (fd, offset, length) => raw.allocate(fd, offset, length),
    copyFrom: (into, src, runs, count, fd, fileBytes) => raw.copyFrom(into, src, runs, count, fd, fileBytes),
    map(fd, offset, length) {
      const buffer = raw.map(fd, offset, length);
      if (buffer === null) throw new Error('map: this runtime refused an external ArrayBuffer over the mapping');
      return buffer;
    },
    mapPrivate(fd, offset, length) {
      const buffer = raw.map(fd, offset, length, true);
      if (buffer === null) throw new Error('map: this runtime refused an external ArrayBuffer over the mapping');
      return buffer;
    },
  };
  mmapUnavailableReason = null;
  return loaded;
}

/** The slab's bytes, read and written the fastest way this thread has. */
export interface SlabAccess {
  readonly kind: 'mapped' | 'positional';
  /** Why this is positional I/O although mapping was wanted (null when mapped or not asked). */
  readonly fallbackReason: string | null;
  /** Bytes reachable: the size given to `openSlabAccess`. */
  readonly size: number;
  read(position: number, into: ArrayBufferView): void;
  write(position: number, from: ArrayBufferView): void;
  /** The shared bytes [position, position + length) in place when mapped; null under positional I/O. */
  bytes(position: number, length: number): Uint8Array | null;
  /** `count` shared floats from byte `position` (a multiple of 4) in place when mapped; else null. */
  float32(position: number, count: number): Float32Array | null;
}

/** The slab is never shorter than its size: a read past its end is a bug here. */
const SLAB_ENDED = { file: 'the slab', why: 'a read past its end', error: (m: string) => new MgpuError('E_INTERNAL', m) };

function asBytes(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

function checkRange(op: string, position: number, length: number, size: number): void {
  if (!Number.isInteger(position) || position < 0 || position + length > size) {
    throw new MgpuError('E_INTERNAL', `slab ${op} of ${length} bytes at ${position} is outside the slab (${size} bytes)`);
  }
}

class PositionalAccess implements SlabAccess {
  readonly kind = 'positional';
  constructor(
    readonly fd: number,
    readonly size: number,
    readonly fallbackReason: string | null,
  ) {}

  read(position: number, into: ArrayBufferView): void {
    readFully(this.fd, asBytes(into), position, SLAB_ENDED);
  }

  write(position: number, from: ArrayBufferView): void {
    const bytes = asBytes(from);
    for (let done = 0; done < bytes.length;) {
      done += fs.writeSync(this.fd, bytes, done, Math.min(MAX_IO, bytes.length - done), position + done);
    }
  }

  bytes(): null {
    return null;
  }

  float32(): null {
    return null;
  }
}

class MappedAccess implements SlabAccess {
  readonly kind = 'mapped';
  readonly fallbackReason = null;
  private readonly all: Uint8Array;
  constructor(
    readonly buffer: ArrayBuffer,
    readonly size: number,
  ) {
    this.all = new Uint8Array(buffer, 0, size);
  }

  read(position: number, into: ArrayBufferView): void {
    checkRange('read', position, into.byteLength, this.size);
    asBytes(into).set(this.all.subarray(position, position + into.byteLength));
  }

  write(position: number, from: ArrayBufferView): void {
    checkRange('write', position, from.byteLength, this.size);
    this.all.set(asBytes(from), position);
  }

  bytes(position: number, length: number): Uint8Array {
    checkRange('view', position, length, this.size);
    return new Uint8Array(this.buffer, position, length);
  }

  float32(position: number, count: number): Float32Array {
    checkRange('view', position, count * 4, this.size);
    return new Float32Array(this.buffer, position, count);
  }
}

/**
 * Access to the first `size` bytes of the slab open as `fd`: mapped when the addon is available
 * and `mmap` is not false, else positional I/O. Call it once the slab has its final size (after
 * `resize` in the coordinator, after `checkHeader` in a worker), once per thread.
 * A system refusal of the mapping (e.g. a directory on a filesystem that cannot be mapped) falls
 * back too; a slab smaller than `size` is an error either way.
 */
export function openSlabAccess(fd: number, size: number, options: { mmap?: boolean } = {}): SlabAccess {
  const actual = fs.fstatSync(fd).size;
  if (actual < size) {
    throw new MgpuError('E_INTERNAL', `the slab is ${actual} bytes, smaller than the ${size} asked for (resize it first)`);
  }
  if (options.mmap === false) return new PositionalAccess(fd, size, null);
  const addon = loadMmap();
  if (!addon) return new PositionalAccess(fd, size, mmapUnavailableReason);
  if (size === 0) return new PositionalAccess(fd, size, 'the slab is empty');
  const page = addon.pageSize();
  const length = Math.ceil(size / page) * page;
  try {
    return new MappedAccess(addon.map(fd, 0, length), size);
  } catch (err) {
    return new PositionalAccess(fd, size, `mapping the slab failed: ${(err as Error).message}`);
  }
}

/**
 * Makes every page of the slab's first `size` bytes exist (posix_fallocate through the addon),
 * so that writes through a mapping can never meet a full tmpfs (SIGBUS). For the coordinator,
 * once, right after the slab is sized. Returns false, doing nothing, when the addon is not
 * available (positional I/O then reports ENOSPC as an ordinary error). Throws the system's error
 * (code ENOSPC, EFBIG, ...) when the pages cannot be had.
 */
export function reserveSlab(fd: number, size: number): boolean {
  const addon = loadMmap();
  if (!addon || size === 0) return false;
  try {
    addon.allocate(fd, 0, size);
  } catch (err) {
    // A filesystem without fallocate (EOPNOTSUPP) has nothing to reserve: not an error.
    if ((err as { code?: string }).code === 'ENOTSUP') return false;
    throw err;
  }
  return true;
}
