// A `type: tfrecord` split whose x / y name float_list and int64_list features as the model's
// inputs and outputs: the shards indexed as for images (every record checked for the keys and
// the count of values of each shape), then read once, record by record in the shards' order,
// into one array per input and output (float32 or int32 by the feature's kind), held in memory
// as an .npy's would be mapped: the seeded order, any N and M and resume are every source's.
import fs from 'node:fs';
import type { TfrecordFeatureSource } from '../../shared/config/types.ts';
import { DataError } from '../../shared/errors.ts';
import { readFully } from '../../shared/read-fully.ts';
import { shardFiles } from '../../shared/shard-files.ts';
import { badSampleSkipRefused } from '../../shared/config/validate/on-bad-sample.ts';
import { memoryColumn } from '../columns.ts';
import type { Dataset, NamedArray } from '../rows.ts';
import { featureValues } from './feature-values.ts';
import { describeIndexes } from './index-header.ts';
import { namingSplit } from './load-tfrecord.ts';
import type { FeatureSpec } from './record-features.ts';
import { shardIndex, type ShardIndex } from './shard-index.ts';
import { FOOTER_BYTES, HEADER_BYTES, recordAt, unframe } from './tfrecord-framing.ts';

type Named = FeatureSpec & { name: string; side: 'x' | 'y' };

export function loadTfrecordFeatures(src: TfrecordFeatureSource, keyPath: string, skipBad: boolean): Dataset {
  if (skipBad && keyPath === 'data.train') throw badSampleSkipRefused('data.train is a tfrecord source of x / y features (read whole before step 0)');
  const shards = shardFiles(src.files, `${keyPath}.files`);
  const named: Named[] = (['x', 'y'] as const).flatMap((side) => Object.entries(src[side]).map(([name, f]) => ({ name, side, key: f.key, shape: f.shape })));
  const indexes = shards.map((f) => namingSplit(keyPath, () => shardIndex(f, { features: named.map(({ key, shape }) => ({ key, shape })) })));
  const count = indexes.reduce((n, x) => n + x.count, 0);
  const columns = namingSplit(keyPath, () => readColumns(indexes, named, count));
  const source = `tfrecord files ${src.files}`;
  const found = `${count.toLocaleString('en-US')} record${count === 1 ? '' : 's'} in ${shards.length} shard${shards.length === 1 ? '' : 's'}`;
  const describe = `${source}: ${found}, x / y features read whole; ${describeIndexes(indexes, 'record')}`;
  const arrays = named.map((n, k): NamedArray & { side: 'x' | 'y' } => ({
    name: n.name,
    side: n.side,
    array: memoryColumn({ dtype: columns[k] instanceof Float32Array ? 'float32' : 'int32', shape: [count, ...n.shape], data: columns[k]! }),
    file: `${src.files} feature ${JSON.stringify(n.key)}`,
  }));
  const inputs = arrays.filter((a) => a.side === 'x');
  const targets = arrays.filter((a) => a.side === 'y');
  return { features: inputs[0]!.array, labels: targets[0]!.array, count, source, inputs, targets, describe };
}

/** One array per feature of every record, in order; a feature whose kind changes between records names the record. */
function readColumns(indexes: readonly ShardIndex[], named: readonly Named[], count: number): Array<Float32Array | Int32Array> {
  const sizes = named.map((n) => n.shape.reduce((a, b) => a * b, 1));
  const columns: Array<Float32Array | Int32Array | null> = named.map(() => null);
  let at = 0;
  for (const x of indexes) {
    const fd = fs.openSync(x.file, 'r');
    try {
      for (let r = 0; r < x.count; r++, at++) {
        const framed = new Uint8Array(HEADER_BYTES + x.lengths[r]! + FOOTER_BYTES);
        readFully(fd, framed, x.offsets[r]!, { file: x.file, why: 'it is shorter than when it was indexed', error: (m) => new DataError(`shard ${m}`) });
        const values = featureValues(unframe(framed, x.file, r, x.offsets[r]!), named, x.file, r, x.offsets[r]!);
        values.forEach((v, k) => {
          const col = (columns[k] ??= v instanceof Float32Array ? new Float32Array(count * sizes[k]!) : new Int32Array(count * sizes[k]!));
          if (col.constructor !== v.constructor)
            throw new DataError(
              `${recordAt(x.file, r, x.offsets[r]!)}: feature ${JSON.stringify(named[k]!.key)} is a ${v instanceof Float32Array ? 'float_list' : 'int64_list'}, but a ${col instanceof Float32Array ? 'float_list' : 'int64_list'} in the records before it`,
              'write every record of a feature with one kind',
            );
          col.set(v, at * sizes[k]!);
        });
      }
    } finally {
      fs.closeSync(fd);
    }
  }
  return columns.map((c) => c!);
}
