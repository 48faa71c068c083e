// The RowPipeline of an image split: the rows a step will stage are decoded ahead in a piscina
// pool (data.threads), each (epoch, sample) into its slot, and copied from there by the split's
// 'made' column when the step stages them. A file that fails to decode rejects ready() with a
// DataError naming it.
import { Piscina } from 'piscina';
import { DataError, messageOf, MgpuError } from '../../shared/errors.ts';
import { childExecArgv, projectFile } from '../../shared/runtime.ts';
import type { DecodeResult, DecodeTask } from './decode-thread.ts';
import { rowBytesOf, type DecodeSpec } from './decode-spec.ts';
import type { PathTable } from './path-table.ts';
import type { RowPipeline } from '../columns.ts';
import { RowSlots } from './row-slots.ts';

interface Entry {
  slot: number;
  done: Promise<void>;
  ready: boolean;
  failed: string | null; // skipBad: why the row could not be made
}

export class ImagePipeline implements RowPipeline {
  private readonly pool: Piscina;
  private readonly slots: RowSlots;
  private readonly rows = new Map<number, Entry>(); // key: epoch * count + sample

  constructor(
    private readonly paths: PathTable,
    private readonly spec: DecodeSpec,
    readonly threads: number,
    private readonly header: string,
    private readonly skipBad = false, // data.onBadSample: skip: ready() resolves; failed() names the rows
  ) {
    this.slots = new RowSlots(rowBytesOf(spec));
    this.pool = new Piscina({
      filename: projectFile('data/images/decode-thread'),
      workerData: { spec },
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity,
      execArgv: childExecArgv(),
    });
  }

  private key(epoch: number, sample: number): number {
    return epoch * this.paths.count + sample;
  }

  prefetch(indices: Uint32Array, epoch: number): void {
    if (this.closed) throw new MgpuError('E_INTERNAL', 'image rows asked for after the pipeline was closed');
    const todo: number[] = [];
    for (const i of indices) if (!this.rows.has(this.key(epoch, i))) todo.push(i);
    if (todo.length === 0) return;
    const per = Math.ceil(todo.length / this.threads);
    for (let s = 0; s < todo.length; s += per) this.decode(todo.slice(s, s + per), epoch);
  }

  private decode(samples: number[], epoch: number): void {
    const slots = samples.map(() => this.slots.take());
    const task: DecodeTask = {
      files: this.paths.slice(samples),
      samples,
      epoch,
      buffers: this.slots.buffers,
      at: slots.flatMap((s) => this.slots.where(s)),
      rowBytes: this.slots.rowBytes,
    };
    const results = (this.pool.run(task) as Promise<DecodeResult>).catch((err: unknown): DecodeResult => {
      const message = `the image decoding thread failed: ${messageOf(err)}`;
      return samples.map(() => ({ message, threadFailed: true })); // not the file's fault: never skipped
    });
    this.inFlight.add(results);
    void results.then(() => this.inFlight.delete(results));
    samples.forEach((sample, j) => {
      const entry: Entry = { slot: slots[j]!, ready: false, done: Promise.resolve(), failed: null };
      entry.done = results.then((r) => {
        const bad = r[j];
        if (bad && this.skipBad && !bad.threadFailed) entry.failed = bad.message;
        else if (bad) throw new DataError(bad.message, bad.hint);
        else entry.ready = true;
      });
      entry.done.catch(() => {}); // awaited by ready(); never an unhandled rejection
      this.rows.set(this.key(epoch, sample), entry);
    });
  }

  async ready(indices: Uint32Array, epoch: number): Promise<void> {
    this.prefetch(indices, epoch);
    for (const i of indices) await this.rows.get(this.key(epoch, i))!.done;
  }

  isReady(indices: Uint32Array, epoch: number): boolean {
    for (const i of indices) if (!this.rows.get(this.key(epoch, i))?.ready) return false;
    return true;
  }

  failed(indices: Uint32Array, epoch: number): { at: number; message: string }[] {
    const out: { at: number; message: string }[] = [];
    indices.forEach((i, at) => {
      const message = this.rows.get(this.key(epoch, i))?.failed;
      if (message) out.push({ at, message });
    });
    return out;
  }

  release(indices: Uint32Array, epoch: number): void {
    for (const i of indices) {
      const k = this.key(epoch, i);
      const e = this.rows.get(k);
      if (!e) continue;
      this.rows.delete(k);
      // A row still being decoded keeps its slot until its thread is done with it.
      void e.done.then(
        () => this.slots.give(e.slot),
        () => this.slots.give(e.slot),
      );
    }
  }

  /** The bytes of a ready row (for the 'made' column). */
  row(sample: number, epoch: number): Uint8Array {
    const e = this.rows.get(this.key(epoch, sample));
    if (!e?.ready) throw new MgpuError('E_INTERNAL', `image row ${sample} of epoch ${epoch} was staged before it was made (ready() was not awaited)`);
    return this.slots.bytes(e.slot);
  }

  private closed: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<DecodeResult>>();

  /**
   * Ends the threads once the tasks they run are done (a result that comes back to a destroyed
   * pool is an uncaught error in piscina); again (a hold-out split shares it) waits for the first.
   */
  close(): Promise<void> {
    this.closed ??= Promise.allSettled([...this.inFlight]).then(() => this.pool.destroy());
    return this.closed;
  }

  describe(): string {
    // sharp's work runs on libuv's pool, one per process, sized at start-up: fewer lanes than threads leaves threads idle.
    const uv = Number(process.env.UV_THREADPOOL_SIZE) || 4;
    const lanes = this.threads > uv ? ` (but libuv's pool has ${uv}: start with UV_THREADPOOL_SIZE=${this.threads})` : '';
    return `${this.header}; decoded by ${this.threads} thread${this.threads === 1 ? '' : 's'}${lanes}`;
  }

  /** Rows the slot buffers hold now (in flight or free): for tests of the memory bound. */
  get slotCapacity(): number {
    return this.slots.capacity;
  }
}
