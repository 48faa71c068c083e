// The worker's end of the BatchNorm exchange (training.syncBatchNorm; the frames and why a socket
// of its own: src/shared/batch-norm-frames.ts). For each micro-batch of a training step the
// worker installs a BatchNormSum (src/worker/batch-norm-sum.ts) that writes this rank's partial
// sums to fd 5 and blocks in read(2) until the coordinator answers: no spinning, no event loop
// (the caller is a kernel in the middle of a forward or backward pass). Outside a step nothing is
// installed, so a BatchNorm layer in training outside one (never, today) uses its own rows.
import fs from 'node:fs';
import { MgpuError } from '../shared/errors.ts';
import { BATCH_NORM_FD, decodeReplyHeader, encodeRequest, readValues, REPLY_HEADER } from '../shared/batch-norm-frames.ts';
import type { TF } from '../nets/net-options.ts';
import { setBatchNormSum } from './batch-norm-sum.ts';
import { fuseBatchNormalization } from './fused-batch-norm.ts';

export interface MicroBatch {
  step: number;
  batch: number; // the step's rows over every worker
  micro: number; // micro-batches per shard
  k: number; // this one
}

export class BatchNormExchange {
  private seq = 0;
  private abandoned = false;

  constructor(
    private readonly fd = BATCH_NORM_FD,
    /** Why this worker cannot sum its statistics: thrown by the first training step. */
    private readonly refusal: MgpuError | null = null,
  ) {}

  /** Runs `fn` (a micro-batch's forward and backward) with its BatchNorm statistics summed with the other workers'. */
  during<T>(at: MicroBatch, fn: () => T): T {
    if (this.refusal) throw this.refusal;
    this.seq = 0;
    if (at.k === 0) this.abandoned = false; // an abandoned step stays abandoned to its end
    setBatchNormSum((partial) => this.sum(at, partial));
    try {
      return fn();
    } finally {
      setBatchNormSum(null);
    }
  }

  private sum(at: MicroBatch, values: Float64Array): Float64Array | null {
    if (this.abandoned) return null;
    const seq = this.seq++;
    writeAll(this.fd, encodeRequest({ ...at, seq, values }));
    const head = decodeReplyHeader(readExactly(this.fd, REPLY_HEADER));
    if (head.seq !== seq) throw new MgpuError('E_INTERNAL', `BatchNorm exchange: the reply is for exchange ${head.seq}, this rank asked ${seq}`);
    if (head.abandoned) {
      this.abandoned = true;
      return null;
    }
    if (head.count !== values.length) throw new MgpuError('E_INTERNAL', `BatchNorm exchange: ${head.count} sums came back for ${values.length} values`);
    return readValues(readExactly(this.fd, head.count * 8), 0, head.count);
  }
}

function writeAll(fd: number, b: Buffer): void {
  for (let at = 0; at < b.length;) at += retrying(() => fs.writeSync(fd, b, at, b.length - at));
}

function readExactly(fd: number, n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let at = 0; at < n;) {
    const got = retrying(() => fs.readSync(fd, b, at, n - at, null));
    if (got === 0) throw new MgpuError('E_WORKER', 'the coordinator closed the BatchNorm exchange (fd 5) in the middle of a step');
    at += got;
  }
  return b;
}

const pause = new Int32Array(new SharedArrayBuffer(4));
/** The socket is blocking as the coordinator hands it over; should it ever be non-blocking, EAGAIN waits 1 ms and tries again. */
function retrying(io: () => number): number {
  for (;;) {
    try {
      return io();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

/**
 * The exchange of a worker on `backend`. tfjs's webgpu backend cannot read a tensor synchronously
 * in Node (its readSync draws through an OffscreenCanvas), and the statistics must be read in the
 * middle of the pass: refused there at the first training step (an eval or predict run of the
 * same config trains nothing, and runs), naming the backends that can. Elsewhere every
 * BatchNormalization call goes through the wrapped call, which sums when a step installed the sum.
 */
export function syncedBatchNorm(tf: TF, backend: string): BatchNormExchange {
  if (backend === 'webgpu') {
    return new BatchNormExchange(
      BATCH_NORM_FD,
      new MgpuError(
        'E_CONFIG',
        'training.syncBatchNorm: the webgpu backend cannot read BatchNorm statistics in the middle of a pass (tfjs reads webgpu tensors only asynchronously in Node)',
        {
          hint: 'use the wasm or cpu backend, or tfjs-node(-gpu) (devices.backend), or set training.syncBatchNorm: false (each worker normalises with its own rows)',
        },
      ),
    );
  }
  fuseBatchNormalization(tf); // on tfjs-node too, whose layers are otherwise tfjs's own: the synced call is on tf ops there
  return new BatchNormExchange();
}
