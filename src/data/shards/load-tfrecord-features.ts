// A `type: tfrecord` split whose x / y name float_list and int64_list features as the model's
// inputs and outputs: the shards indexed as for images (every record checked for the keys and
// the count of values of each shape), then read once, record by record in the shards' order,
// into one array per input and output (float32 or int32 by the feature's kind), held in memory
// as an .npy's would be mapped: the seeded order, any N and M and resume are every source's.
import fs from 'node:fs';
import type { ShardHttpOptions, TfrecordFeatureSource } from '../../config/types.ts';
import { DataError } from '../../shared/errors.ts';
import { readFully } from '../../shared/read-fully.ts';
import { isShardUrl, shardFiles } from '../../shared/shard-files.ts';
import { SHARD_HTTP_DEFAULTS } from '../../config/validate/shard-http.ts';
import { badSampleSkipRefused } from '../../config/validate/on-bad-sample.ts';
import { memoryColumn } from '../columns.ts';
import type { Dataset, NamedArray } from '../rows.ts';
import { featureValues } from './feature-values.ts';
import { describeIndexes } from './index-header.ts';
import { indexShards, namingSplit } from './load-tfrecord.ts';
import { eachInFlight } from './shard-http.ts';
import { urlFingerprints } from './url-index.ts';
import type { FeatureSpec } from './record-features.ts';
import { shardIndex, type ShardIndex } from './shard-index.ts';
import { FOOTER_BYTES, HEADER_BYTES, recordAt, unframe } from './tfrecord-framing.ts';

type Named = FeatureSpec & { name: string; side: 'x' | 'y' };

export function loadTfrecordFeatures(src: TfrecordFeatureSource, keyPath: string, skipBad: boolean): Dataset | Promise<Dataset> {
  if (skipBad && keyPath === 'data.train') throw badSampleSkipRefused('data.train is a tfrecord source of x / y features (read whole before step 0)');
  const shards = shardFiles(src.files, `${keyPath}.files`);
  const named: Named[] = (['x', 'y'] as const).flatMap((side) => Object.entries(src[side]).map(([name, f]) => ({ name, side, key: f.key, shape: f.shape })));
  const keys = { features: named.map(({ key, shape }) => ({ key, shape })) };
  if (!isShardUrl(src.files)) {
    const indexes = shards.map((f) => namingSplit(keyPath, () => shardIndex(f, keys)));
    const count = indexes.reduce((n, x) => n + x.count, 0);
    return assemble(
      src,
      named,
      indexes,
      namingSplit(keyPath, () => readColumns(indexes, named, count, localShard)),
    );
  }
  return (async () => {
    const indexes = await indexShards(shards, keys, keyPath, src.http);
    const count = indexes.reduce((n, x) => n + x.count, 0);
    const whole = await namingSplitAsync(keyPath, () => wholeShards(indexes, src.http ?? SHARD_HTTP_DEFAULTS));
    return assemble(
      src,
      named,
      indexes,
      namingSplit(keyPath, () => readColumns(indexes, named, count, (x) => fromBytes(whole.get(x.file)!, x))),
    );
  })();
}

function assemble(src: TfrecordFeatureSource, named: readonly Named[], indexes: readonly ShardIndex[], columns: Array<Float32Array | Int32Array>): Dataset {
  const count = indexes.reduce((n, x) => n + x.count, 0);
  const source = `tfrecord files ${src.files}`;
  const found = `${count.toLocaleString('en-US')} record${count === 1 ? '' : 's'} in ${indexes.length} shard${indexes.length === 1 ? '' : 's'}`;
  const describe = `${source}: ${found}, x / y features read whole; ${describeIndexes(indexes, 'record')}`;
  const arrays = named.map((n, k): NamedArray & { side: 'x' | 'y' } => ({
    name: n.name,
    side: n.side,
    array: memoryColumn({ dtype: columns[k] instanceof Float32Array ? 'float32' : 'int32', shape: [count, ...n.shape], data: columns[k]! }),
    file: `${src.files} feature ${JSON.stringify(n.key)}`,
  }));
  const inputs = arrays.filter((a) => a.side === 'x');
  const targets = arrays.filter((a) => a.side === 'y');
  const fingerprints = urlFingerprints(indexes);
  return {
    features: inputs[0]!.array,
    labels: targets[0]!.array,
    count,
    source,
    inputs,
    targets,
    describe,
    ...(fingerprints ? { shardFingerprints: fingerprints } : {}),
  };
}

/** A shard's framed records, one at a time, and the end of reading it. */
interface ShardRecords {
  framed(r: number): Uint8Array;
  close(): void;
}

/** A local shard's records, each one pread. */
function localShard(x: ShardIndex): ShardRecords {
  const fd = fs.openSync(x.file, 'r');
  return {
    framed(r) {
      const framed = new Uint8Array(HEADER_BYTES + x.lengths[r]! + FOOTER_BYTES);
      readFully(fd, framed, x.offsets[r]!, { file: x.file, why: 'it is shorter than when it was indexed', error: (m) => new DataError(`shard ${m}`) });
      return framed;
    },
    close: () => fs.closeSync(fd),
  };
}

/** The records of a shard read whole (a URL's: one GET of bytes 0 to its end). */
function fromBytes(bytes: Buffer, x: ShardIndex): ShardRecords {
  return { framed: (r) => bytes.subarray(x.offsets[r], x.offsets[r]! + HEADER_BYTES + x.lengths[r]! + FOOTER_BYTES), close: () => {} };
}

/** Each URL shard's bytes, by one Range request of the whole shard each, `http.inFlight` at once. */
async function wholeShards(indexes: readonly ShardIndex[], http: ShardHttpOptions): Promise<Map<string, Buffer>> {
  const bodies = await eachInFlight(indexes, http, (x, client) => client.range(x.file, 0, x.size!, 'the whole shard (x / y features are read whole)'));
  return new Map(indexes.map((x, k) => [x.file, bodies[k]!]));
}

async function namingSplitAsync<T>(keyPath: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    return namingSplit(keyPath, () => {
      throw err;
    });
  }
}

/** One array per feature of every record, in order; a feature whose kind changes between records names the record. */
function readColumns(
  indexes: readonly ShardIndex[],
  named: readonly Named[],
  count: number,
  open: (x: ShardIndex) => ShardRecords,
): Array<Float32Array | Int32Array> {
  const sizes = named.map((n) => n.shape.reduce((a, b) => a * b, 1));
  const columns: Array<Float32Array | Int32Array | null> = named.map(() => null);
  let at = 0;
  for (const x of indexes) {
    const records = open(x);
    try {
      for (let r = 0; r < x.count; r++, at++) {
        const framed = records.framed(r);
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
      records.close();
    }
  }
  return columns.map((c) => c!);
}
