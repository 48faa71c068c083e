// The features a `type: tfrecord` source reads from each record's Example: the image (a
// bytes_list with one value, decoded by the image pipeline) and the label (an int64_list with
// one value, the class index). A record that is not an Example, or misses a key, or has it of
// another kind, is a DataError naming the shard, the record and the key.
import { DataError } from '../../shared/errors.ts';
import { bytesValues, decodeExample, ExampleError, int64Values, KIND_NAMES, type Feature, type FeatureKind } from './example-proto.ts';
import { recordAt } from './tfrecord-framing.ts';

/** The feature keys of a source: its image's and its label's (null: none read). */
export interface ImageKeys {
  image: string | null;
  label: string | null;
}

/** A feature read as a model's input or output: its key and the shape of its values in one record. */
export interface FeatureSpec {
  key: string;
  shape: number[];
}

/** What each record is checked for as a shard is indexed: an image and a label, or features. */
export type RecordKeys = ImageKeys | { features: FeatureSpec[] };

/** The keys as an index records them (an index checked for other keys is rebuilt). */
export const keysStamp = (k: RecordKeys): string => JSON.stringify('features' in k ? k.features.map((f) => [f.key, f.shape]) : [k.image, k.label]);

const HINT = 'check the feature keys in the config (image:, label:) against the files (e.g. with tf.train.Example.FromString in Python)';

/** A record's image bytes (null when keys.image is) and label (0 when keys.label is null). */
export function exampleFeatures(data: Uint8Array, keys: ImageKeys, file: string, record: number, offset: number): { image: Uint8Array | null; label: number } {
  const where = recordAt(file, record, offset);
  const features = example(data, where);
  const get = (key: string, kind: FeatureKind): Feature => {
    const f = features.get(key);
    if (!f) {
      const have = [...features.keys()].map((k) => JSON.stringify(k)).join(', ') || 'none';
      throw new DataError(`${where}: has no feature ${JSON.stringify(key)} (its features: ${have})`, HINT);
    }
    if (f.kind !== kind) throw new DataError(`${where}: feature ${JSON.stringify(key)} is a ${KIND_NAMES[f.kind]}, expected a ${KIND_NAMES[kind]}`, HINT);
    return f;
  };
  const one = <T>(key: string, values: T[]): T => {
    if (values.length !== 1) throw new DataError(`${where}: feature ${JSON.stringify(key)} holds ${values.length} values, expected 1`, HINT);
    return values[0]!;
  };
  const image =
    keys.image === null
      ? null
      : one(
          keys.image,
          listValues(where, keys.image, () => bytesValues(get(keys.image!, 'bytes'))),
        );
  let label = 0;
  if (keys.label !== null) {
    const v = one(
      keys.label,
      listValues(where, keys.label, () => int64Values(get(keys.label!, 'int64'))),
    );
    if (v < -0x80000000n || v > 0x7fffffffn) throw new DataError(`${where}: label ${v} (feature ${JSON.stringify(keys.label)}) is not a class index`, HINT);
    label = Number(v);
  }
  return { image, label };
}

/** A feature's values decoded by `decode`; a list that is malformed (a packed float_list of an odd byte length, a varint past its end) is a DataError at `where` naming the key. */
export function listValues<T>(where: string, key: string, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    if (!(err instanceof ExampleError)) throw err;
    throw new DataError(`${where}: feature ${JSON.stringify(key)} is malformed: ${err.message}`, 'the files must hold serialized tf.train.Example records');
  }
}

/** The features of a record's Example; data that is not one is a DataError at `where`. */
export function example(data: Uint8Array, where: string): Map<string, Feature> {
  try {
    return decodeExample(data);
  } catch (err) {
    if (!(err instanceof ExampleError)) throw err;
    throw new DataError(`${where}: not a tf.train.Example (${err.message})`, 'the files must hold serialized tf.train.Example records');
  }
}
