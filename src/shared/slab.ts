// The slab: one shared-memory file that carries every tensor between the processes.
// Created by the coordinator (0600), unlinked the moment it is open, so the kernel frees it
// when the last process holding the descriptor exits, however they die. Workers inherit the
// descriptor at spawn (stdio fd 3); its size is set once the model layout is known.
//
// Access, behind one interface: mapped (the project's N-API addon maps the descriptor in each
// process and thread; hot paths then read and write the shared pages in place) or, where the
// addon is not built, positional I/O (pread/pwrite): pure JS, safe from any thread.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { MgpuError } from './errors.ts';
import { HEADER_BYTES, type SlabLayout } from './layout.ts';
import { openSlabAccess, reserveSlab, type SlabAccess } from './mapped-memory.ts';

const MAGIC = 0x4d475055; // "MGPU"
const VERSION = 1;
export class Slab {
  readonly fd: number;
  private io: SlabAccess;
  private readonly mmap: boolean;
  /** `mmap: false` keeps positional I/O even where the addon could map (benchmarks compare both). */
  constructor(fd: number, opts: { mmap?: boolean } = {}) {
    this.fd = fd;
    this.mmap = opts.mmap ?? true;
    this.io = openSlabAccess(fd, 0, { mmap: false });
  }

  /** Maps the slab at its layout's size (once per process or thread, and again after it grows). */
  attach(layout: SlabLayout): void {
    this.io = openSlabAccess(this.fd, layout.size, { mmap: this.mmap });
  }

  get mode(): 'mapped' | 'positional' {
    return this.io.kind;
  }

  /** Why the slab is not mapped, when it is not. */
  get fallbackReason(): string | null {
    return this.io.fallbackReason;
  }

  /** `length` bytes at byte `position`, in place in the shared pages; null under positional I/O. */
  bytes(position: number, length: number): Uint8Array | null {
    return this.io.bytes(position, length);
  }

  /** `count` floats at byte `position`, in place in the shared pages; null under positional I/O. */
  floats(position: number, count: number): Float32Array | null {
    return this.io.float32(position, count);
  }

  /** Creates and unlinks the slab file in `dir`. Its size is 0 until `resize`. */
  static create(dir: string, opts: { mmap?: boolean } = {}): Slab {
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
      const what = fs.existsSync(dir) ? 'is a file, not a directory' : 'does not exist';
      throw new MgpuError('E_SHM', `shared-memory directory ${dir} ${what}`, {
        hint: 'set devices.shmDir (or --set devices.shmDir=/path) to a directory on a tmpfs or a fast local disk',
      });
    }
    const file = path.join(dir, `mgpu-train-${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
    let fd: number;
    try {
      fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
    } catch (err) {
      throw new MgpuError('E_SHM', `cannot create the slab in ${dir}: ${(err as Error).message}`, {
        hint: 'set devices.shmDir to a writable directory',
        cause: err,
      });
    }
    fs.unlinkSync(file);
    return new Slab(fd, opts);
  }

  /** Grows the slab to the layout's size after checking that the directory can hold it. */
  resize(layout: SlabLayout, dir: string): void {
    const stat = fs.statfsSync(dir);
    const free = stat.bavail * stat.bsize;
    if (free < layout.size) {
      const mib = (n: number) => `${Math.ceil(n / 2 ** 20)} MiB`;
      throw new MgpuError('E_SHM', `the slab needs ${mib(layout.size)} but ${dir} has ${mib(free)} free`, {
        hint: `give the container more shared memory (docker run --shm-size=${mib(layout.size * 1.25).replace(' MiB', 'm')}) or set devices.shmDir to a directory with room`,
      });
    }
    fs.ftruncateSync(this.fd, layout.size);
    // Reserve the pages now: a full tmpfs then fails here with ENOSPC, not later with SIGBUS.
    try {
      reserveSlab(this.fd, layout.size);
    } catch (err) {
      throw new MgpuError('E_SHM', `cannot reserve ${Math.ceil(layout.size / 2 ** 20)} MiB in ${dir}: ${(err as Error).message}`, {
        hint: 'give the container more shared memory (docker run --shm-size=...) or set devices.shmDir to a directory with room',
      });
    }
    this.attach(layout);
    const header = new Uint32Array([MAGIC, VERSION, layout.hash, layout.workers, layout.params, layout.trainable]);
    this.write(0, header);
  }

  /** Workers check that the header matches the layout they computed themselves. */
  checkHeader(layout: SlabLayout): void {
    const header = new Uint32Array(6);
    this.read(0, header);
    const want = [MAGIC, VERSION, layout.hash, layout.workers, layout.params, layout.trainable];
    const names = ['magic', 'version', 'layout hash', 'workers', 'params', 'trainable params'];
    want.forEach((w, i) => {
      if (header[i] !== w) {
        throw new MgpuError('E_LAYOUT', `slab header ${names[i]} is ${header[i]}, this worker expected ${w}`);
      }
    });
  }

  read(position: number, into: ArrayBufferView): void {
    this.io.read(position, into);
  }

  write(position: number, from: ArrayBufferView): void {
    this.io.write(position, from);
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

export { HEADER_BYTES };
