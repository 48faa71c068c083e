// featureValues reads a record's x / y features (tf.train.Example, encoded here by a protobuf
// writer of the test's own): a float_list as float32, an int64_list as int32 (int32's two ends
// kept, one past either end refused), each spec in the config's order; a key missing (the
// record's keys listed, or 'none'), a bytes_list, or another count of values than the shape holds
// is a DataError naming the shard, the record, its byte and the key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { featureValues } from '../../src/data/shards/feature-values.ts';
import { DataError } from '../../src/shared/errors.ts';

function varint(n: bigint): number[] {
  let v = BigInt.asUintN(64, n);
  const out: number[] = [];
  do {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? b | 0x80 : b);
  } while (v > 0n);
  return out;
}
const field = (no: number, bytes: number[]) => [...varint(BigInt((no << 3) | 2)), ...varint(BigInt(bytes.length)), ...bytes];
type Value = { float: number[] } | { int64: bigint[] } | { bytes: string };
function feature(v: Value): number[] {
  if ('float' in v) {
    const b = Buffer.alloc(4 * v.float.length);
    v.float.forEach((x, i) => b.writeFloatLE(x, 4 * i));
    return field(2, field(1, [...b]));
  }
  if ('int64' in v) return field(3, field(1, v.int64.flatMap(varint)));
  return field(1, field(1, [...Buffer.from(v.bytes)]));
}
const record = (features: [string, Value][]) =>
  Uint8Array.from(
    field(
      1,
      features.flatMap(([k, v]) => field(1, [...field(1, [...Buffer.from(k)]), ...field(2, feature(v))])),
    ),
  );

const WHERE = /^shard s\.tfrecord record 7 \(at byte 96\): /;
function refused(data: Uint8Array, specs: { key: string; shape: number[] }[], message: RegExp): void {
  assert.throws(
    () => featureValues(data, specs, 's.tfrecord', 7, 96),
    (e: unknown) => e instanceof DataError && WHERE.test(e.message) && message.test(e.message),
  );
}

test('float_list as float32, int64_list as int32, in the order of the specs', () => {
  const data = record([
    ['y', { int64: [-0x80000000n, 0n, 0x7fffffffn] }],
    ['x', { float: [0.5, -1.25, 3e38, 1e-45] }],
  ]);
  const [x, y] = featureValues(
    data,
    [
      { key: 'x', shape: [2, 2] },
      { key: 'y', shape: [3] },
    ],
    's.tfrecord',
    7,
    96,
  );
  assert.ok(x instanceof Float32Array);
  assert.deepEqual(Array.from(x), [0.5, -1.25, Math.fround(3e38), Math.fround(1e-45)]);
  assert.ok(y instanceof Int32Array);
  assert.deepEqual(Array.from(y), [-0x80000000, 0, 0x7fffffff]);
});

test('an int64 one past int32 at either end is refused, naming the key and the value', () => {
  refused(record([['y', { int64: [0x80000000n] }]]), [{ key: 'y', shape: [1] }], /feature "y" value 2147483648 is past int32/);
  refused(record([['y', { int64: [1n, -0x80000001n] }]]), [{ key: 'y', shape: [2] }], /feature "y" value -2147483649 is past int32/);
});

test('a key missing: the record keys listed, or none', () => {
  refused(
    record([
      ['a', { float: [1] }],
      ['b', { float: [1] }],
    ]),
    [{ key: 'x', shape: [1] }],
    /has no feature "x" \(its features: "a", "b"\)$/,
  );
  refused(record([]), [{ key: 'x', shape: [1] }], /has no feature "x" \(its features: none\)$/);
});

test('a bytes_list is refused as x / y', () => {
  refused(record([['x', { bytes: 'abc' }]]), [{ key: 'x', shape: [1] }], /feature "x" is a bytes_list, expected a float_list or int64_list$/);
});

test('another count of values than the shape holds is refused, shape named', () => {
  refused(record([['x', { float: [1, 2, 3] }]]), [{ key: 'x', shape: [2, 2] }], /feature "x" holds 3 values, expected 4 \(shape \[2, 2\]\)$/);
  refused(record([['y', { int64: [1n, 2n, 3n, 4n, 5n] }]]), [{ key: 'y', shape: [4] }], /feature "y" holds 5 values, expected 4 \(shape \[4\]\)$/);
});
