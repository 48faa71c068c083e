// Runs the reduce/apply kernel over the whole trainable vector: on the calling thread when the
// model is small (a thread hop costs more than the work), else cut into one contiguous range per
// piscina thread. The pool starts once per run; its threads keep their buffers between steps.
import { Piscina } from 'piscina';
import { floatKernels } from '../../../shared/float-kernels.ts';
import { childExecArgv, projectFile } from '../../../shared/runtime.ts';
import { overlappedAllreduce, type Combine } from '../overlapped-allreduce.ts';
import { CHUNK, makeReducer, type Reducer, type ReduceShared, type ReduceTask } from './reducer.ts';

// Below this many trainable floats the reduce stays on the coordinator's thread: waking a
// thread costs more than the work. The C kernels move a float about ten times faster than the
// JavaScript ones, so with them the line sits higher.
const inlineBelow = (): number => (floatKernels().kind === 'native' ? 1 << 21 : 1 << 18);

export interface ReduceResult {
  gradNorm: number; // global L2 norm of the summed gradient, before clipping
  clipScale: number; // 1 when not clipped
}

export class ReducePool {
  private readonly inline: Reducer | null;
  private readonly pool: Piscina | null;
  private readonly ranges: Array<[number, number]>;

  /** `inlineBelow`: override the size under which the reduce stays inline (tests use 0). */
  constructor(
    readonly shared: ReduceShared,
    threads: number,
    private readonly clipNorm: number | null,
    opts: { inlineBelow?: number } = {},
  ) {
    const pt = shared.slab.trainable;
    const per = Math.max(CHUNK, Math.ceil(pt / Math.max(1, threads) / CHUNK) * CHUNK);
    this.ranges = [];
    for (let s = 0; s < pt; s += per) this.ranges.push([s, Math.min(pt, s + per)]);
    if (this.ranges.length === 0) this.ranges.push([0, 0]);
    if (pt < (opts.inlineBelow ?? inlineBelow()) || threads <= 1) {
      this.inline = makeReducer(shared);
      this.pool = null;
      this.ranges = [[0, pt]];
    } else {
      this.inline = null;
      this.pool = new Piscina({
        filename: projectFile('coordinator/engine/reduce/reduce-thread'),
        workerData: shared,
        minThreads: this.ranges.length,
        maxThreads: this.ranges.length,
        idleTimeout: Infinity,
        execArgv: childExecArgv(),
      });
    }
  }

  get threads(): number {
    return this.pool ? this.ranges.length : 0;
  }

  /** `within`: only [from, to), cut over the threads (for the sum pass: its squares are not kept). */
  private async each(task: (start: number, end: number) => ReduceTask, within?: [number, number]): Promise<number[]> {
    if (this.inline) return this.inline(task(...(within ?? [0, this.shared.slab.trainable])));
    const ranges = within ? cut(within, this.ranges.length) : this.ranges;
    const parts = await Promise.all(ranges.map(([s, e]) => this.pool!.run(task(s, e)) as Promise<number[]>));
    return parts.flat();
  }

  /** Adds one rank's gradient to the running sum while later ranks still compute (rank order!). */
  async accumulate(rank: number, first: boolean): Promise<void> {
    await this.each((start, end) => ({ kind: 'accumulate', start, end, rank, first }));
  }

  /**
   * Sums the remaining ranks' gradients (onto what `accumulate` summed when `continuing`),
   * (clips,) updates the master weights and publishes them to the slab.
   */
  async run(ranks: number[], continuing: boolean, lr: number, t: number): Promise<ReduceResult> {
    if (this.clipNorm === null) {
      const sq = await this.each((start, end) => ({ kind: 'fused', start, end, ranks, continuing, lr, t }));
      return { gradNorm: Math.sqrt(sumInOrder(sq)), clipScale: 1 };
    }
    const sq = await this.each((start, end) => ({ kind: 'sum', start, end, ranks, continuing }));
    const gradNorm = Math.sqrt(sumInOrder(sq));
    const scale = gradNorm > this.clipNorm ? this.clipNorm / gradNorm : 1;
    await this.each((start, end) => ({ kind: 'apply', start, end, lr, t, scale }));
    return { gradNorm, clipScale: scale };
  }

  /**
   * Several machines: sums this machine's ranks into gradSum chunk by chunk, each chunk's
   * allreduce through `combine` started as soon as it is summed (overlapped-allreduce.ts), then
   * takes the norm of the whole and (clips,) updates and publishes, as run() does on one machine.
   */
  async runCombined(ranks: number[], continuing: boolean, lr: number, t: number, combine: Combine): Promise<ReduceResult> {
    const sum = (from: number, to: number) => this.each((start, end) => ({ kind: 'sum', start, end, ranks, continuing }), [from, to]);
    await overlappedAllreduce(new Float32Array(this.shared.gradSum), sum, combine);
    const gradNorm = Math.sqrt(sumInOrder(await this.each((start, end) => ({ kind: 'norm', start, end }))));
    const scale = this.clipNorm !== null && gradNorm > this.clipNorm ? this.clipNorm / gradNorm : 1;
    await this.each((start, end) => ({ kind: 'apply', start, end, lr, t, scale }));
    return { gradNorm, clipScale: scale };
  }

  async destroy(): Promise<void> {
    await this.pool?.destroy();
  }
}

/** [from, to) in up to `n` pieces of a multiple of CHUNK floats (the last one shorter). */
function cut([from, to]: [number, number], n: number): Array<[number, number]> {
  const per = Math.max(CHUNK, Math.ceil((to - from) / n / CHUNK) * CHUNK);
  const out: Array<[number, number]> = [];
  for (let s = from; s < to; s += per) out.push([s, Math.min(to, s + per)]);
  return out.length ? out : [[from, to]];
}

function sumInOrder(a: number[]): number {
  let s = 0;
  for (const x of a) s += x;
  return s;
}
