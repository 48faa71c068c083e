// The values of a record's features read as the model's inputs and outputs (x / y of a tfrecord
// source): each a float_list (float32 values) or an int64_list (int32 values: an int64 past
// int32's range is refused), of exactly the values of its shape. A key missing, of a bytes_list,
// or of another count is a DataError naming the shard, the record and the key.
import { DataError } from '../../shared/errors.ts';
import { floatValues, int64Values, KIND_NAMES } from './example-proto.ts';
import { example, listValues, type FeatureSpec } from './record-features.ts';
import { recordAt } from './tfrecord-framing.ts';

const HINT = 'check the feature keys and shapes in the config (x:, y:) against the files (e.g. with tf.train.Example.FromString in Python)';

/** Each spec's values in the record, float32 or int32 by the feature's kind. */
export function featureValues(data: Uint8Array, specs: readonly FeatureSpec[], file: string, record: number, offset: number): Array<Float32Array | Int32Array> {
  const where = recordAt(file, record, offset);
  const features = example(data, where);
  return specs.map(({ key, shape }) => {
    const f = features.get(key);
    const have = () => [...features.keys()].map((k) => JSON.stringify(k)).join(', ') || 'none';
    if (!f) throw new DataError(`${where}: has no feature ${JSON.stringify(key)} (its features: ${have()})`, HINT);
    if (f.kind === 'bytes') throw new DataError(`${where}: feature ${JSON.stringify(key)} is a ${KIND_NAMES.bytes}, expected a float_list or int64_list`, HINT);
    const values = listValues(where, key, () => (f.kind === 'float' ? floatValues(f) : ints(int64Values(f), key, where)));
    const want = shape.reduce((a, b) => a * b, 1);
    if (values.length !== want)
      throw new DataError(`${where}: feature ${JSON.stringify(key)} holds ${values.length} values, expected ${want} (shape [${shape.join(', ')}])`, HINT);
    return values;
  });
}

function ints(values: bigint[], key: string, where: string): Int32Array {
  const out = new Int32Array(values.length);
  values.forEach((v, i) => {
    if (v < -0x80000000n || v > 0x7fffffffn)
      throw new DataError(`${where}: feature ${JSON.stringify(key)} value ${v} is past int32 (an int64_list is read as int32)`, HINT);
    out[i] = Number(v);
  });
  return out;
}
