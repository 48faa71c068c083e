// A tf.train.Example serialized by hand (a few protobuf fields need no protobuf library), as
// TensorFlow's conversion scripts write one per image:
//   Example  { Features features = 1; }
//   Features { map<string, Feature> feature = 1; }   (each entry { string key = 1; Feature value = 2; })
//   Feature  { oneof { BytesList bytes_list = 1; FloatList float_list = 2; Int64List int64_list = 3; } }
//   BytesList { repeated bytes value = 1; }   Int64List { repeated int64 value = 1 [packed]; }
// The entries in the order given (protobuf maps have none; TensorFlow's parser takes any).

export type ExampleFeature = { bytes: Uint8Array } | { int64: number };

/** A non-negative integer as a protobuf varint. */
function varint(n: number): Buffer {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`a varint must be a non-negative safe integer, got ${n}`);
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Buffer.from(out);
}

/** A length-delimited field (wire type 2): key, length, bytes. */
function lengthDelimited(field: number, body: Uint8Array): Buffer[] {
  return [varint((field << 3) | 2), varint(body.length), Buffer.from(body.buffer, body.byteOffset, body.length)];
}

function featureBytes(f: ExampleFeature): Buffer {
  if ('bytes' in f) return Buffer.concat(lengthDelimited(1, Buffer.concat(lengthDelimited(1, f.bytes)))); // bytes_list { value }
  return Buffer.concat(lengthDelimited(3, Buffer.concat(lengthDelimited(1, varint(f.int64))))); // int64_list { packed value }
}

/** The serialized Example of `features` (key → one bytes or int64 value each). */
export function encodeExample(features: ReadonlyArray<[string, ExampleFeature]>): Buffer {
  const entries = features.map(([key, f]) =>
    Buffer.concat(lengthDelimited(1, Buffer.concat([...lengthDelimited(1, Buffer.from(key)), ...lengthDelimited(2, featureBytes(f))]))),
  );
  return Buffer.concat(lengthDelimited(1, Buffer.concat(entries))); // features
}
