// Runs the reduce/apply kernel over the whole trainable vector: on the calling thread when the
// model is small (a thread hop costs more than the work), else cut into one contiguous range per
// piscina thread. The pool starts once per run; its threads keep their buffers between steps.
import { Piscina } from 'piscina';
import { childExecArgv, projectFile } from '../../shared/runtime.ts';
import { makeReducer, type Reducer, type ReduceShared } from './reducer.ts';

// Below this many trainable floats the reduce stays on the coordinator's thread.
const INLINE_BELOW = 1 << 18;
// Range boundaries fall on multiples of this many floats (64 KiB, page-aligned).
const CHUNK = 1 << 14;

export class ReducePool {
  private readonly inline: Reducer | null;
  private readonly pool: Piscina | null;
  private readonly ranges: Array<[number, number]>;

  constructor(readonly shared: ReduceShared, threads: number) {
    const pt = shared.slab.trainable;
    if (pt < INLINE_BELOW || threads <= 1) {
      this.inline = makeReducer(shared);
      this.pool = null;
      this.ranges = [[0, pt]];
    } else {
      this.inline = null;
      this.pool = new Piscina({
        filename: projectFile('coordinator/reduce/reduce-thread'),
        workerData: shared,
        minThreads: threads,
        maxThreads: threads,
        idleTimeout: Infinity,
        execArgv: childExecArgv(),
      });
      const per = Math.ceil(pt / threads / CHUNK) * CHUNK;
      this.ranges = [];
      for (let s = 0; s < pt; s += per) this.ranges.push([s, Math.min(pt, s + per)]);
    }
  }

  get threads(): number {
    return this.pool ? this.ranges.length : 0;
  }

  async run(ranks: number[], lr: number, t: number): Promise<void> {
    if (this.inline) {
      this.inline({ start: 0, end: this.shared.slab.trainable, ranks, lr, t });
      return;
    }
    await Promise.all(this.ranges.map(([start, end]) => this.pool!.run({ start, end, ranks, lr, t })));
  }

  async destroy(): Promise<void> {
    await this.pool?.destroy();
  }
}
