// The labels of a tfrecord split: each record's int64 label plus labelOffset, a class index. The
// classes are data.classes (or data.train's, for data.eval), whose count bounds the indices, or
// else 0..K-1 with K one more than the largest index found, named by their numbers ("0", "1", ...)
// as an image folder's class folders name them. An index outside them names its record.
import { DataError } from '../../shared/errors.ts';
import type { ClassMapping } from '../classes.ts';
import type { ShardIndex } from './shard-index.ts';
import { recordAt } from './tfrecord-framing.ts';

export interface RecordLabels {
  labels: Int32Array; // [count]: class indices
  classes: string[];
  distinct: number; // how many classes have a record
}

/** Where record r of a shard is, for messages (a tar shard's say "sample"). */
export type RecordPlace = (x: ShardIndex, r: number) => string;
const tfrecordPlace: RecordPlace = (x, r) => recordAt(x.file, r, x.offsets[r]!);

export function recordLabels(
  indexes: readonly ShardIndex[],
  labelOffset: number,
  keyPath: string,
  given: ClassMapping | null,
  place: RecordPlace = tfrecordPlace,
): RecordLabels {
  const labels = new Int32Array(indexes.reduce((n, x) => n + x.count, 0));
  let at = 0;
  let top = -1;
  for (const x of indexes) {
    for (let r = 0; r < x.count; r++, at++) {
      const c = x.labels[r]! + labelOffset;
      if (c < 0 || (given && c >= given.classes.length)) throw outside(place(x, r), x.labels[r]!, c, labelOffset, keyPath, given);
      labels[at] = c;
      if (c > top) top = c;
    }
  }
  const classes = given ? [...given.classes] : Array.from({ length: top + 1 }, (_, i) => String(i));
  return { labels, classes, distinct: new Set(labels).size };
}

function outside(at: string, raw: number, c: number, offset: number, keyPath: string, given: ClassMapping | null): DataError {
  const label = `label ${raw}${offset ? ` + labelOffset ${offset} = class ${c}` : ''}`;
  const where = `${keyPath}: ${at}`;
  if (c < 0)
    return new DataError(
      `${where}: ${label} is below 0 (class indices start at 0)`,
      offset === 0 ? "if the classes are numbered from 1 (as ImageNet's TFRecords are), set labelOffset: -1" : 'check labelOffset',
    );
  return new DataError(`${where}: ${label} is past the ${given!.classes.length} classes of ${given!.from}`, given!.hint ?? 'list every class in data.classes');
}
