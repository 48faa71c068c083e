// The coordinator's end of the BatchNorm exchange (training.syncBatchNorm; the frames:
// src/shared/batch-norm-frames.ts). Each worker's fd 5 comes here as it is spawned (and again
// when a rank is restarted). A request is held until every local worker with rows in that
// micro-batch has sent the same one (which ones: the step's split, `cluster.shards`, and each
// shard's micro-batches, `shardSizes`); their values are then summed in rank order (float64),
// over the machines by one allreduce when there are several, and the sums go back to each.
//
// A worker that dies (killed, crashed, or stalled and killed by its deadline) closes its socket:
// every exchange that waits for it is answered `abandoned`, and so is every later request that
// would wait for a rank not running. The survivors then finish the step on their own statistics
// and reply as usual; the failed step is thrown away and run again once the rank is restarted
// (reliability.onWorkerFailure), so nothing waits forever and no step trains on half a sum.
// Over several machines a rank cannot be restarted in the middle of the others' collectives:
// syncBatchNorm there needs onWorkerFailure: abort (the job ends, --resume continues).
import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { Config } from '../../config/types.ts';
import { ConfigError } from '../../shared/errors.ts';
import { decodeRequestHeader, encodeReply, readValues, REQUEST_HEADER, BATCH_NORM_FD } from '../../shared/batch-norm-frames.ts';
import { shardSizes, type Shard } from '../../shared/shard.ts';
import type { Cluster } from '../devices/cluster.ts';

/** What the relay asks of the worker group: the ranks taking part in steps. */
interface Ranks {
  active: number[];
}

interface Waiting {
  seq: number;
  expected: number[]; // local ranks with rows in this micro-batch, ascending
  got: Map<number, Float64Array>;
  what: string;
}

export class BatchNormRelay {
  private readonly out = new Map<number, Writable>();
  private readonly running = new Set<number>();
  private readonly waiting = new Map<string, Waiting>();
  /** Allreduces over the machines are posted in the order their exchanges complete (MPI matches collectives by order). */
  private posted: Promise<void> = Promise.resolve();
  private group: Ranks = { active: [] };

  constructor(private readonly cluster: Cluster) {}

  /**
   * A (re)spawned worker: its fd 5 is read from now on; `group` says which ranks a step splits
   * over. Returns whether that rank is waiting on the others (its step deadline then waits too).
   */
  readonly attach = (rank: number, child: ChildProcess, group: Ranks): (() => boolean) | undefined => {
    this.group = group;
    const socket = (child.stdio as unknown[])[BATCH_NORM_FD] as (Readable & Writable) | null | undefined;
    if (!socket) return undefined;
    socket.on('error', () => {}); // a dead worker's socket: its close does the work
    this.out.set(rank, socket);
    this.running.add(rank);
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        if (pending.length < REQUEST_HEADER) break;
        const head = decodeRequestHeader(pending);
        const size = REQUEST_HEADER + head.count * 8;
        if (pending.length < size) break;
        this.onRequest(rank, head, readValues(pending, REQUEST_HEADER, head.count));
        pending = pending.subarray(size);
      }
    });
    socket.on('close', () => {
      if (this.out.get(rank) !== socket) return; // an older incarnation of a restarted rank
      this.running.delete(rank);
      for (const [key, w] of this.waiting) if (w.expected.includes(rank)) this.abandon(key, w);
    });
    return () => [...this.waiting.values()].some((w) => w.got.has(rank));
  };

  private onRequest(rank: number, head: ReturnType<typeof decodeRequestHeader>, values: Float64Array): void {
    const key = `${head.step}/${head.k}/${head.seq}`;
    let w = this.waiting.get(key);
    if (!w) {
      const expected = withRows(this.cluster.shards(head.batch, this.group.active), head.micro, head.k);
      w = { seq: head.seq, expected, got: new Map(), what: `step ${head.step + 1}: BatchNorm statistics (exchange ${head.seq} of micro-batch ${head.k})` };
      this.waiting.set(key, w);
    }
    w.got.set(rank, values);
    if (!w.expected.includes(rank) || w.expected.some((r) => !this.running.has(r))) {
      this.abandon(key, w);
      return;
    }
    if (w.got.size < w.expected.length) return;
    this.waiting.delete(key);
    const sums = sumInRankOrder(w);
    if (!sums) this.abandon(key, w);
    else if (this.cluster.size === 1) this.answer(w, sums);
    else this.crossMachines(w, sums);
  }

  /** The allreduce of the local sums, posted after the one before it, then the answer. */
  private crossMachines(w: Waiting, sums: Float64Array): void {
    const done = this.posted.then(() => this.cluster.sum(sums, w.what));
    this.posted = done.catch(() => {}); // a failed allreduce ends the job (cluster.ts): later ones are never posted
    void done.then(() => this.answer(w, sums));
  }

  private answer(w: Waiting, sums: Float64Array): void {
    const reply = encodeReply({ status: 'summed', seq: w.seq, values: sums });
    for (const r of w.expected) this.out.get(r)?.write(reply);
  }

  private abandon(key: string, w: Waiting): void {
    this.waiting.delete(key);
    const reply = encodeReply({ status: 'abandoned', seq: w.seq });
    for (const r of w.got.keys()) if (this.running.has(r)) this.out.get(r)?.write(reply);
  }
}

/** The local ranks whose shard has rows in micro-batch k. */
function withRows(shards: Shard[], micro: number, k: number): number[] {
  return shards.filter((s) => (shardSizes(s.end - s.start, micro)[k] ?? 0) > 0).map((s) => s.rank);
}

/** Σ over the expected ranks, in rank order, element by element; null (said on stderr) when their lengths differ, which the same model never gives. */
function sumInRankOrder(w: Waiting): Float64Array | null {
  const sums = new Float64Array(w.got.get(w.expected[0]!)!.length);
  for (const r of w.expected) {
    const v = w.got.get(r)!;
    if (v.length !== sums.length) {
      console.error(`E_INTERNAL ${w.what}: rank ${r} sent ${v.length} values, rank ${w.expected[0]} ${sums.length}; the step's statistics are each rank's own`);
      return null;
    }
    for (let i = 0; i < v.length; i++) sums[i]! += v[i]!;
  }
  return sums;
}

/** The relay a run needs (null without syncBatchNorm); over several machines only with onWorkerFailure: abort. */
export function batchNormRelay(cfg: Config, cluster: Cluster): BatchNormRelay | null {
  if (!cfg.training.syncBatchNorm) return null;
  if (cluster.size > 1 && cfg.reliability.onWorkerFailure !== 'abort') {
    throw new ConfigError(
      'training.syncBatchNorm',
      `synchronised BatchNorm statistics over ${cluster.size} machines cannot survive a worker restarted in the middle of a step: the other machines are already in its collectives`,
      'set reliability.onWorkerFailure: abort (a failure ends the job; --resume continues from the last checkpoint), or train on one machine',
    );
  }
  return new BatchNormRelay(cluster);
}
