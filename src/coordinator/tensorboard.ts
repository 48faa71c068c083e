// A TensorBoard event file beside metrics.jsonl, so TensorBoard (and every tool that reads its
// files) shows a run: `tensorboard --logdir runs/`.
//
// The file is a sequence of TFRecords, each
//   uint64 length (little endian) | uint32 masked CRC-32C of the length bytes | data | uint32 masked CRC-32C of the data
// (masked: ((crc >>> 15) | (crc << 17)) + 0xa282ead8), whose data is one serialized
// tensorflow.Event protocol buffer:
//   Event   { double wall_time = 1; int64 step = 2; string file_version = 3; Summary summary = 5; }
//   Summary { repeated Value value = 1; }   Value { string tag = 1; float simple_value = 2; }
// The first event holds file_version "brain.Event:2". Written by hand: a few bytes of protobuf do
// not need a protobuf library.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crc32c } from '../shared/crc32c.ts';

// The record framing's CRC: CRC-32C (shared/crc32c.ts, which checkpoints use too), masked.

export function maskedCrc(bytes: Uint8Array): number {
  const c = crc32c(bytes);
  return ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

/** One TFRecord around `data`. */
export function tfRecord(data: Uint8Array): Buffer {
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(data.length));
  const out = Buffer.alloc(8 + 4 + data.length + 4);
  len.copy(out, 0);
  out.writeUInt32LE(maskedCrc(len), 8);
  out.set(data, 12);
  out.writeUInt32LE(maskedCrc(data), 12 + data.length);
  return out;
}

// ---- protobuf, the few wire types an Event needs -------------------------------------------
function varint(n: number | bigint): number[] {
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n; // int64: two's complement in 10 bytes
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}
const key = (field: number, wire: number) => varint((field << 3) | wire);
const bytesField = (field: number, b: Uint8Array) => [...key(field, 2), ...varint(b.length), ...b];

function double(field: number, x: number): number[] {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(x);
  return [...key(field, 1), ...b];
}
function float(field: number, x: number): number[] {
  const b = Buffer.alloc(4);
  b.writeFloatLE(x);
  return [...key(field, 5), ...b];
}

/** A serialized Event: either the file version, or scalar summaries at a step. */
export function encodeEvent(e: { wallTime: number; step: number; fileVersion?: string; scalars?: Record<string, number> }): Uint8Array {
  const out = [...double(1, e.wallTime), ...key(2, 0), ...varint(e.step)];
  if (e.fileVersion !== undefined) out.push(...bytesField(3, Buffer.from(e.fileVersion)));
  if (e.scalars) {
    const values = Object.entries(e.scalars).map(([tag, v]) => bytesField(1, Uint8Array.from([...bytesField(1, Buffer.from(tag)), ...float(2, v)])));
    out.push(...bytesField(5, Uint8Array.from(values.flat())));
  }
  return Uint8Array.from(out);
}

export class EventWriter {
  private readonly fd: number;
  readonly file: string;

  constructor(dir: string, now = Date.now()) {
    this.file = path.join(dir, `events.out.tfevents.${Math.floor(now / 1000)}.${os.hostname()}`);
    this.fd = fs.openSync(this.file, 'a');
    fs.writeSync(this.fd, tfRecord(encodeEvent({ wallTime: now / 1000, step: 0, fileVersion: 'brain.Event:2' })));
  }

  /** Scalars at a step; values that are not finite numbers are left out. */
  scalars(step: number, values: Record<string, number | null | undefined>, now = Date.now()): void {
    const finite = Object.fromEntries(Object.entries(values).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1])));
    if (Object.keys(finite).length === 0) return;
    fs.writeSync(this.fd, tfRecord(encodeEvent({ wallTime: now / 1000, step, scalars: finite })));
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

/** Reads the records of an event file back, checking both CRCs of each (the tests' reader, and a check). */
export function readRecords(file: string): Uint8Array[] {
  const b = fs.readFileSync(file);
  const out: Uint8Array[] = [];
  for (let at = 0; at < b.length;) {
    const lenBytes = b.subarray(at, at + 8);
    if (b.readUInt32LE(at + 8) !== maskedCrc(lenBytes)) throw new Error(`${file}: bad length CRC at byte ${at}`);
    const len = Number(b.readBigUInt64LE(at));
    const data = b.subarray(at + 12, at + 12 + len);
    if (b.readUInt32LE(at + 12 + len) !== maskedCrc(data)) throw new Error(`${file}: bad data CRC at byte ${at}`);
    out.push(data);
    at += 16 + len;
  }
  return out;
}
