// Rows made ahead in a piscina pool, each (epoch, sample) into its slot of shared buffers (the
// threads write them in place; nothing comes back but a verdict per row): the common part of the
// image pipeline (decode-thread.ts) and of a map-style module's with data.threads (map-thread.ts).
// A step's rows are cut into one task per thread; a row's verdict is settled by `settle`.
import { Piscina } from 'piscina';
import { MgpuError } from '../shared/errors.ts';
import { childExecArgv, projectFile } from '../shared/runtime.ts';
import type { RowPipeline } from './columns.ts';
import { RowSlots } from './row-slots.ts';

/** What every task of the pool is given besides its own fields (`ThreadRows.taskOf`). */
export interface SlotTask {
  samples: number[];
  epoch: number;
  buffers: SharedArrayBuffer[]; // the row slots, [chunk]
  at: number[]; // per sample: chunk, byte offset (pairs)
  rowBytes: number;
  progress: SharedArrayBuffer; // one Int32: the position in `samples` of the sample being made now (a thread that tells: map-thread.ts)
}

/** Per sample: null (written), or what went wrong (threadFailed: the thread, not the sample). */
export type SlotResult = Array<{ message: string; hint?: string; threadFailed?: boolean } | null>;

interface Entry {
  slot: number;
  done: Promise<void>;
  settled: boolean; // its task came back (ready, skipped or failed)
  inMaking: () => boolean; // its thread says it is making this one now
  ready: boolean;
  failed: string | null; // skipped: why the row could not be made
}

/** How long close() waits for tasks still running before it terminates their threads. */
export const CLOSE_WAIT_MS = 5000;

/** Resolves when every one of `tasks` has settled, or after `ms`, whichever comes first. */
function settledWithin(tasks: Promise<unknown>[], ms: number): Promise<void> {
  if (tasks.length === 0) return Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([Promise.allSettled(tasks).then(() => {}), late]).finally(() => clearTimeout(timer));
}

export abstract class ThreadRows implements Omit<RowPipeline, 'describe'> {
  private readonly pool: Piscina;
  private readonly slots: RowSlots;
  private readonly rows = new Map<number, Entry>(); // key: epoch * count + sample
  private closed: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<SlotResult>>();

  constructor(
    thread: string, // the thread's file, relative to src/
    workerData: unknown,
    readonly threads: number,
    rowBytes: number,
    private readonly count: number,
  ) {
    this.slots = new RowSlots(rowBytes);
    this.pool = new Piscina({
      filename: projectFile(thread),
      workerData,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity,
      execArgv: childExecArgv(),
    });
  }

  /** A task's own fields besides SlotTask's (the files to decode). */
  protected abstract taskOf(samples: number[]): object;
  /** The message of every row of a task whose thread failed (it threw or died). */
  protected abstract threadFailed(err: unknown): string;
  /** A row's verdict: throws its DataError, or returns why it is skipped, or null: ready. */
  protected abstract settle(sample: number, bad: SlotResult[number], row: Uint8Array): string | null;

  private key(epoch: number, sample: number): number {
    return epoch * this.count + sample;
  }

  prefetch(indices: Uint32Array, epoch: number): void {
    if (this.closed) throw new MgpuError('E_INTERNAL', 'rows asked for after their pipeline was closed');
    const todo: number[] = [];
    for (const i of indices) if (!this.rows.has(this.key(epoch, i))) todo.push(i);
    if (todo.length === 0) return;
    const per = Math.ceil(todo.length / this.threads);
    for (let s = 0; s < todo.length; s += per) this.make(todo.slice(s, s + per), epoch);
  }

  private make(samples: number[], epoch: number): void {
    const slots = samples.map(() => this.slots.take());
    const at = slots.flatMap((s) => this.slots.where(s));
    const progress = new Int32Array(new SharedArrayBuffer(4)).fill(-1);
    const task: SlotTask = {
      ...this.taskOf(samples),
      samples,
      epoch,
      buffers: this.slots.buffers,
      at,
      rowBytes: this.slots.rowBytes,
      progress: progress.buffer,
    };
    const results = (this.pool.run(task) as Promise<SlotResult>).catch((err: unknown): SlotResult => {
      const message = this.threadFailed(err);
      return samples.map(() => ({ message, threadFailed: true })); // not the sample's fault: never skipped
    });
    this.inFlight.add(results);
    void results.then(() => this.inFlight.delete(results));
    samples.forEach((sample, j) => {
      const inMaking = () => Atomics.load(progress, 0) === j;
      const entry: Entry = { slot: slots[j]!, ready: false, settled: false, inMaking, done: Promise.resolve(), failed: null };
      entry.done = results.then((r) => {
        entry.settled = true;
        entry.failed = this.settle(sample, r[j] ?? null, this.slots.bytes(entry.slot));
        entry.ready = entry.failed === null;
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

  /**
   * The first of these samples whose task has not come back, one its thread says it is making
   * first (the others of its task wait behind it); null when every one has come back.
   */
  protected unsettledSample(indices: Uint32Array, epoch: number): number | null {
    const waiting = Array.from(indices).filter((i) => this.rows.get(this.key(epoch, i))?.settled === false);
    return waiting.find((i) => this.rows.get(this.key(epoch, i))!.inMaking()) ?? waiting[0] ?? null;
  }

  release(indices: Uint32Array, epoch: number): void {
    for (const i of indices) {
      const k = this.key(epoch, i);
      const e = this.rows.get(k);
      if (!e) continue;
      this.rows.delete(k);
      // A row still being made keeps its slot until its thread is done with it.
      void e.done.then(
        () => this.slots.give(e.slot),
        () => this.slots.give(e.slot),
      );
    }
  }

  /** The bytes of a made row; undefined before it is ready. */
  protected madeRow(sample: number, epoch: number): Uint8Array | undefined {
    const e = this.rows.get(this.key(epoch, sample));
    return e?.ready ? this.slots.bytes(e.slot) : undefined;
  }

  /**
   * Ends the threads once the tasks they run are done (a result that comes back to a destroyed
   * pool is an uncaught error in piscina), or after CLOSE_WAIT_MS when one never comes back (a
   * get() whose Promise never settles: its thread is terminated); again (a hold-out split shares
   * it) waits for the first.
   */
  close(): Promise<void> {
    this.closed ??= settledWithin([...this.inFlight], CLOSE_WAIT_MS).then(() => this.pool.destroy());
    return this.closed;
  }

  /** Rows the slot buffers hold now (in flight or free): for tests of the memory bound. */
  get slotCapacity(): number {
    return this.slots.capacity;
  }
}
