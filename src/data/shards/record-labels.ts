// The labels of a tfrecord split: each record's int64 label plus labelOffset, a class index. The
// classes are data.classes (or data.train's, for data.eval), whose count bounds the indices, or
// else 0..K-1 with K one more than the largest index found, named by their numbers ("0", "1", ...)
// as an image folder's class folders name them. Such numbered classes are bounded too, before
// anything is made of their count: by model.classes when the config sets it, else by
// MAX_NUMBERED_CLASSES. One odd record's label of 1,000,000,000 is an error naming it, never a
// list of a billion class names. An index outside them names its record.
import { DataError } from '../../shared/errors.ts';
import type { ClassMapping } from '../classes.ts';
import type { ShardIndex } from './shard-index.ts';
import { recordAt } from './tfrecord-framing.ts';

/** The most classes numbered labels may stand for without data.classes or model.classes (ImageNet-21k has 21,841; Google Landmarks v2 203,094). */
export const MAX_NUMBERED_CLASSES = 1_000_000;

export interface RecordLabels {
  labels: Int32Array; // [count]: class indices
  classes: string[];
  distinct: number; // how many classes have a record
}

/** Where record r of a shard is, for messages (a tar shard's say "sample"). */
export type RecordPlace = (x: ShardIndex, r: number) => string;
const tfrecordPlace: RecordPlace = (x, r) => recordAt(x.file, r, x.offsets[r]!);

/** What bounds the class indices: a list of classes, else model.classes (a count) or MAX_NUMBERED_CLASSES. */
function boundOf(given: ClassMapping | null, modelClasses: number | null): { count: number; of: string; hint: string } {
  if (given) return { count: given.classes.length, of: given.from, hint: given.hint ?? 'list every class in data.classes' };
  if (modelClasses !== null)
    return { count: modelClasses, of: 'model.classes', hint: 'check the label feature (and labelOffset), or raise model.classes to the number of classes' };
  return {
    count: MAX_NUMBERED_CLASSES,
    of: `numbered labels (at most ${MAX_NUMBERED_CLASSES.toLocaleString('en-US')} without data.classes or model.classes)`,
    hint: 'check the label feature (and labelOffset); a run of more classes lists them in data.classes or sets model.classes',
  };
}

export function recordLabels(
  indexes: readonly ShardIndex[],
  labelOffset: number,
  keyPath: string,
  given: ClassMapping | null,
  place: RecordPlace = tfrecordPlace,
  modelClasses: number | null = null,
): RecordLabels {
  const bound = boundOf(given, modelClasses);
  const labels = new Int32Array(indexes.reduce((n, x) => n + x.count, 0));
  let at = 0;
  let top = -1;
  for (const x of indexes) {
    for (let r = 0; r < x.count; r++, at++) {
      const c = x.labels[r]! + labelOffset;
      if (c < 0 || c >= bound.count) throw outside(place(x, r), x.labels[r]!, c, labelOffset, keyPath, bound);
      labels[at] = c;
      if (c > top) top = c;
    }
  }
  const classes = given ? [...given.classes] : Array.from({ length: top + 1 }, (_, i) => String(i));
  return { labels, classes, distinct: new Set(labels).size };
}

function outside(at: string, raw: number, c: number, offset: number, keyPath: string, bound: ReturnType<typeof boundOf>): DataError {
  const label = `label ${raw}${offset ? ` + labelOffset ${offset} = class ${c}` : ''}`;
  const where = `${keyPath}: ${at}`;
  if (c < 0)
    return new DataError(
      `${where}: ${label} is below 0 (class indices start at 0)`,
      offset === 0 ? "if the classes are numbered from 1 (as ImageNet's TFRecords are), set labelOffset: -1" : 'check labelOffset',
    );
  return new DataError(`${where}: ${label} is past the ${bound.count.toLocaleString('en-US')} classes of ${bound.of}`, bound.hint);
}
