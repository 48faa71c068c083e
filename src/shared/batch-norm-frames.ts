// The BatchNorm exchange (training.syncBatchNorm): its own socket pair per worker, at stdio fd 5,
// beside the control pipe (fd 4), because a kernel in the middle of a forward pass cannot wait
// for a message on the event loop: the worker writes a request and blocks in read(2) on this
// socket until the coordinator's relay (src/coordinator/engine/batch-norm-relay.ts) answers.
//
//   worker → coordinator  request : this rank's per-channel partial sums for one BatchNorm
//                                   exchange of one micro-batch of one step
//   coordinator → worker  reply   : `summed`: the sums over every worker of that micro-batch (of
//                                   every machine), in rank order, the same for all of them;
//                                   `abandoned`: a worker of the step died, the step will run
//                                   again: finish it with this worker's own statistics, send no
//                                   more requests for it
//
// Every worker of a micro-batch sends the same requests in the same order (the same layers, each
// forward then backward), numbered by `seq` from 0 in each micro-batch; a request is answered once
// every worker that has rows in that micro-batch has sent the same one. Frames are little-endian:
//
//   request  u32 magic 'MBNQ', u32 step, u32 batch (the step's rows over every worker),
//            u32 micro (micro-batches per shard), u32 k (this micro-batch), u32 seq, u32 count,
//            u32 0, then count float64
//   reply    u32 magic 'MBNR', u32 status (0 summed, 1 abandoned), u32 seq, u32 count (0 when
//            abandoned), then count float64
import { MgpuError } from './errors.ts';

export const BATCH_NORM_FD = 5;
const REQUEST_MAGIC = 0x514e424d; // 'MBNQ' read as little-endian bytes
const REPLY_MAGIC = 0x524e424d; // 'MBNR'
export const REQUEST_HEADER = 32;
export const REPLY_HEADER = 16;

export interface BatchNormRequest {
  step: number;
  batch: number;
  micro: number;
  k: number;
  seq: number;
  values: Float64Array;
}

export type BatchNormReply = { status: 'summed'; seq: number; values: Float64Array } | { status: 'abandoned'; seq: number };

export function encodeRequest(r: BatchNormRequest): Buffer {
  const b = Buffer.alloc(REQUEST_HEADER + r.values.length * 8);
  const head = [REQUEST_MAGIC, r.step, r.batch, r.micro, r.k, r.seq, r.values.length, 0];
  head.forEach((v, i) => b.writeUInt32LE(v, i * 4));
  r.values.forEach((v, i) => b.writeDoubleLE(v, REQUEST_HEADER + i * 8));
  return b;
}

/** The request's header fields; the values follow in `count` float64. Throws on a frame that is not a request. */
export function decodeRequestHeader(b: Buffer): Omit<BatchNormRequest, 'values'> & { count: number } {
  if (b.readUInt32LE(0) !== REQUEST_MAGIC)
    throw new MgpuError('E_INTERNAL', `BatchNorm exchange: a request frame starts with 0x${b.readUInt32LE(0).toString(16)}`);
  const u = (i: number) => b.readUInt32LE(i * 4);
  return { step: u(1), batch: u(2), micro: u(3), k: u(4), seq: u(5), count: u(6) };
}

export function encodeReply(r: BatchNormReply): Buffer {
  const values = r.status === 'summed' ? r.values : new Float64Array(0);
  const b = Buffer.alloc(REPLY_HEADER + values.length * 8);
  [REPLY_MAGIC, r.status === 'summed' ? 0 : 1, r.seq, values.length].forEach((v, i) => b.writeUInt32LE(v, i * 4));
  values.forEach((v, i) => b.writeDoubleLE(v, REPLY_HEADER + i * 8));
  return b;
}

/** The reply's status, seq and value count. Throws on a frame that is not a reply. */
export function decodeReplyHeader(b: Buffer): { abandoned: boolean; seq: number; count: number } {
  if (b.readUInt32LE(0) !== REPLY_MAGIC) throw new MgpuError('E_INTERNAL', `BatchNorm exchange: a reply frame starts with 0x${b.readUInt32LE(0).toString(16)}`);
  return { abandoned: b.readUInt32LE(4) === 1, seq: b.readUInt32LE(8), count: b.readUInt32LE(12) };
}

/** `count` float64 from `at` (a copy: a frame's offset need not be aligned for a Float64Array view). */
export function readValues(b: Buffer, at: number, count: number): Float64Array {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) out[i] = b.readDoubleLE(at + i * 8);
  return out;
}
