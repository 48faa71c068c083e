// A small decoder of tf.train.Example (tensorflow/core/example/{example,feature}.proto):
// Example { Features features = 1 }, Features { map<string, Feature> feature = 1 }, Feature
// { oneof: BytesList bytes_list = 1, FloatList float_list = 2, Int64List int64_list = 3 }, each
// list `repeated value = 1`, floats and int64s packed or not, int64s as varints (a negative one
// in ten bytes). A feature's values are decoded only when asked for. Malformed input throws an
// ExampleError saying what is wrong; the caller names the shard and record.

export class ExampleError extends Error {}

export type FeatureKind = 'bytes' | 'float' | 'int64';
export const KIND_NAMES: Record<FeatureKind, string> = { bytes: 'bytes_list', float: 'float_list', int64: 'int64_list' };

/** One feature: its kind and its list message's bytes (decoded by the functions below). */
export interface Feature {
  kind: FeatureKind;
  body: Uint8Array;
}

const KINDS: Record<number, FeatureKind> = { 1: 'bytes', 2: 'float', 3: 'int64' };

class Reader {
  at = 0;
  constructor(readonly b: Uint8Array) {}
  get done(): boolean {
    return this.at >= this.b.length;
  }
  varint(): bigint {
    let v = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.at >= this.b.length) throw new ExampleError('a varint runs past the end');
      const byte = this.b[this.at++]!;
      v |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return BigInt.asUintN(64, v);
    }
    throw new ExampleError('a varint longer than 10 bytes');
  }
  small(): number {
    const v = this.varint();
    if (v > 0x7fffffffn) throw new ExampleError(`a length or tag of ${v} is too large`);
    return Number(v);
  }
  bytes(n: number): Uint8Array {
    if (this.at + n > this.b.length) throw new ExampleError(`a field of ${n} bytes runs past the end (${this.b.length - this.at} left)`);
    const out = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  /** The next field: its number, wire type and (for wire type 2) its bytes; other wire types skipped over. */
  field(): { no: number; wire: number; body: Uint8Array | null } {
    const tag = this.small();
    const no = tag >>> 3;
    const wire = tag & 7;
    if (no === 0) throw new ExampleError('a field numbered 0');
    if (wire === 2) return { no, wire, body: this.bytes(this.small()) };
    if (wire === 0) this.varint();
    else if (wire === 1) this.bytes(8);
    else if (wire === 5) this.bytes(4);
    else throw new ExampleError(`wire type ${wire} (not one protobuf writes)`);
    return { no, wire, body: null };
  }
}

/** The features of a serialized Example, by key (a key given twice: the last, as protobuf's maps do). */
export function decodeExample(bytes: Uint8Array): Map<string, Feature> {
  const out = new Map<string, Feature>();
  const ex = new Reader(bytes);
  while (!ex.done) {
    const f = ex.field();
    if (f.no !== 1) continue;
    if (!f.body) throw new ExampleError('field 1 (features) is not a message');
    const features = new Reader(f.body);
    while (!features.done) {
      const e = features.field();
      if (e.no !== 1) continue;
      if (!e.body) throw new ExampleError('a feature map entry is not a message');
      entry(e.body, out);
    }
  }
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function entry(body: Uint8Array, out: Map<string, Feature>): void {
  const r = new Reader(body);
  let key = '';
  let feature: Feature = { kind: 'bytes', body: new Uint8Array(0) }; // an absent value: an empty Feature
  while (!r.done) {
    const f = r.field();
    if (f.no === 1 && f.body) {
      try {
        key = utf8.decode(f.body);
      } catch {
        throw new ExampleError('a feature key is not UTF-8 text');
      }
    } else if (f.no === 2 && f.body) feature = oneFeature(f.body);
  }
  out.set(key, feature);
}

function oneFeature(body: Uint8Array): Feature {
  const r = new Reader(body);
  let found: Feature | null = null;
  while (!r.done) {
    const f = r.field();
    const kind = KINDS[f.no];
    if (kind && f.body) found = { kind, body: f.body };
  }
  return found ?? { kind: 'bytes', body: new Uint8Array(0) };
}

/** A bytes_list's values. */
export function bytesValues(f: Feature): Uint8Array[] {
  const out: Uint8Array[] = [];
  const r = new Reader(f.body);
  while (!r.done) {
    const v = r.field();
    if (v.no === 1 && v.body) out.push(v.body);
  }
  return out;
}

/** A float_list's values, packed or not. */
export function floatValues(f: Feature): Float32Array {
  const out: number[] = [];
  const r = new Reader(f.body);
  while (!r.done) {
    const start = r.at;
    const v = r.field();
    if (v.no !== 1) continue;
    if (v.wire === 5) out.push(view(r.b, r.at - 4).getFloat32(0, true));
    else if (v.body) {
      if (v.body.length % 4) throw new ExampleError(`a packed float_list of ${v.body.length} bytes (not a multiple of 4)`);
      for (let i = 0; i < v.body.length; i += 4) out.push(view(v.body, i).getFloat32(0, true));
    } else throw new ExampleError(`a float_list value of wire type ${v.wire} at byte ${start}`);
  }
  return Float32Array.from(out);
}

/** An int64_list's values, packed or not, as signed 64-bit integers. */
export function int64Values(f: Feature): bigint[] {
  const out: bigint[] = [];
  const r = new Reader(f.body);
  while (!r.done) {
    const at = r.at;
    const tag = r.small();
    if (tag >>> 3 !== 1) {
      r.at = at;
      r.field();
      continue;
    }
    if ((tag & 7) === 0) out.push(BigInt.asIntN(64, r.varint()));
    else if ((tag & 7) === 2) {
      const packed = new Reader(r.bytes(r.small()));
      while (!packed.done) out.push(BigInt.asIntN(64, packed.varint()));
    } else throw new ExampleError(`an int64_list value of wire type ${tag & 7}`);
  }
  return out;
}

const view = (b: Uint8Array, at: number) => new DataView(b.buffer, b.byteOffset + at);
