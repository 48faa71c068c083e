// A TensorBoard event file beside metrics.jsonl, so TensorBoard (and every tool that reads its
// files) shows a run: `tensorboard --logdir runs/`.
//
// The file is a sequence of TFRecords, each
//   uint64 length (little endian) | uint32 masked CRC-32C of the length bytes | data | uint32 masked CRC-32C of the data
// (masked as TensorFlow masks it; src/shared/tfrecord-frame.ts), whose data is one serialized
// tensorflow.Event protocol buffer:
//   Event   { double wall_time = 1; int64 step = 2; string file_version = 3; Summary summary = 5; }
//   Summary { repeated Value value = 1; }   Value { string tag = 1; float simple_value = 2; }
// The first event holds file_version "brain.Event:2". Written by hand: a few bytes of protobuf do
// not need a protobuf library.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { maskedCrc32c, tfRecord } from '../../shared/tfrecord-frame.ts';

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

/** The step of a serialized Event (field 2, a varint; 0 when absent), read without a protobuf library. */
export function stepOf(event: Uint8Array): number {
  let at = 0;
  const readVarint = (): bigint => {
    let v = 0n;
    for (let shift = 0n; at < event.length; shift += 7n) {
      const byte = event[at++]!;
      v |= BigInt(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    throw new Error('a varint runs past the end of the event');
  };
  while (at < event.length) {
    const k = Number(readVarint());
    const wire = k & 7;
    if (k >>> 3 === 2 && wire === 0) return Number(BigInt.asIntN(64, readVarint()));
    if (wire === 0) readVarint();
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) at += Number(readVarint());
    else throw new Error(`wire type ${wire} in an event`);
  }
  return 0;
}

/**
 * On resume, each event file of the run directory keeps only its records up to `keepThrough` (and
 * its version record), as metrics.jsonl keeps its lines: the interrupted run's later steps would
 * otherwise show beside the resumed run's in TensorBoard. The file is read up to its first
 * damaged record (one torn by a crash) and rewritten under a temporary name, then renamed.
 */
export function trimEventFiles(dir: string, keepThrough: number, write: (file: string, data: Uint8Array) => void): void {
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.startsWith('events.out.tfevents.')) : [];
  for (const name of files) {
    const file = path.join(dir, name);
    const records = readRecords(file, { upToDamage: true });
    const kept = records.filter((r, i) => i === 0 || stepOf(r) <= keepThrough);
    if (kept.length === records.length && recordsLength(records) === fs.statSync(file).size) continue;
    write(file, Buffer.concat(kept.map((r) => tfRecord(r))));
  }
}

const recordsLength = (records: Uint8Array[]): number => records.reduce((n, r) => n + 16 + r.length, 0);

/** Reads the records of an event file back, checking both CRCs of each (the tests' reader, and a check). */
export function readRecords(file: string, opts: { upToDamage?: boolean } = {}): Uint8Array[] {
  const b = fs.readFileSync(file);
  const out: Uint8Array[] = [];
  const damaged = (what: string, at: number): Uint8Array[] => {
    if (opts.upToDamage) return out;
    throw new Error(`${file}: ${what} at byte ${at}`);
  };
  for (let at = 0; at < b.length;) {
    if (at + 12 > b.length) return damaged('a record cut short', at);
    const lenBytes = b.subarray(at, at + 8);
    if (b.readUInt32LE(at + 8) !== maskedCrc32c(lenBytes)) return damaged('bad length CRC', at);
    const len = Number(b.readBigUInt64LE(at));
    if (at + 16 + len > b.length) return damaged('a record cut short', at);
    const data = b.subarray(at + 12, at + 12 + len);
    if (b.readUInt32LE(at + 12 + len) !== maskedCrc32c(data)) return damaged('bad data CRC', at);
    out.push(data);
    at += 16 + len;
  }
  return out;
}
