// Fakes for the BatchNorm relay's unit tests (src/coordinator/engine/batch-norm-relay.ts): a
// worker whose fd 5 is an in-memory duplex (what the test pushes is what the worker sent; what
// the relay writes is kept, decoded), and a one-machine cluster.
import type { ChildProcess } from 'node:child_process';
import { Duplex } from 'node:stream';
import { decodeReplyHeader, encodeRequest, readValues, REPLY_HEADER, type BatchNormRequest } from '../../src/shared/batch-norm-frames.ts';
import { assignShards } from '../../src/shared/shard.ts';
import type { Cluster } from '../../src/coordinator/devices/cluster.ts';

export interface Reply {
  abandoned: boolean;
  seq: number;
  values: number[];
}

/** A worker's end of fd 5 in memory. */
export class FakeWorkerSocket extends Duplex {
  readonly replies: Reply[] = [];
  override _read(): void {}
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    const head = decodeReplyHeader(chunk);
    this.replies.push({ abandoned: head.abandoned, seq: head.seq, values: [...readValues(chunk, REPLY_HEADER, head.count)] });
    done();
  }
  /** The worker sends a request (in one piece, or in pieces of `chunk` bytes). */
  send(r: Omit<BatchNormRequest, 'values'> & { values: number[] }, chunk = 0): void {
    const b = encodeRequest({ ...r, values: Float64Array.from(r.values) });
    if (chunk <= 0) this.push(b);
    else for (let at = 0; at < b.length; at += chunk) this.push(b.subarray(at, at + chunk));
  }
}

/** A child process as the relay sees it: only stdio[5]. */
export function fakeChild(socket: FakeWorkerSocket): ChildProcess {
  return { stdio: [null, null, null, null, null, socket] } as unknown as ChildProcess;
}

/** One machine (or `size` of them, with `sum` standing for the allreduce). */
export function fakeCluster(size = 1, sum: Cluster['sum'] = async () => {}): Cluster {
  return { size, shards: (batch: number, active: readonly number[]) => assignShards(batch, active), sum } as unknown as Cluster;
}

/** Lets the relay's 'data' and 'close' handlers and its promise chain run. */
export const settle = () => new Promise((resolve) => setImmediate(resolve));
