// Precision, recall and F1 from per-class counts summed over the whole eval set (every rank,
// every chunk): never a mean of per-worker or per-batch values, so the figure is the one a
// single process computes over all the rows at once.
//
// A "class" is a class of a softmax (categorical losses: the predicted class is the argmax), or
// one output of a binaryCrossentropy model (a yes/no problem each, thresholded at 0.5). On an
// output of more than two dimensions (a mask, time steps) the counts are over its positions.
//   macro  the unweighted mean of the per-class values over the classes that occur in the labels
//          or the predictions (as scikit-learn's average='macro'); a per-class value whose
//          denominator is 0 counts as 0
//   micro  the value of the summed counts (for one label per row out of several classes,
//          precision = recall = f1 = accuracy)
// null when no class occurs at all (no positive label and no positive prediction).
import type { MetricAverage } from '../../config/types.ts';

export interface ClassCounts {
  tp: number[]; // per class: rows of this class predicted as this class
  fp: number[]; // predicted as this class, of another class
  fn: number[]; // of this class, predicted as another
}

export type CountMetric = 'precision' | 'recall' | 'f1';

/** `into` + `c`, class by class (a new object when `into` is null). */
export function addCounts(into: ClassCounts | null, c: ClassCounts): ClassCounts {
  if (into === null) return { tp: [...c.tp], fp: [...c.fp], fn: [...c.fn] };
  if (into.tp.length !== c.tp.length) throw new RangeError(`addCounts: ${into.tp.length} classes and ${c.tp.length}`);
  for (let i = 0; i < c.tp.length; i++) {
    into.tp[i]! += c.tp[i]!;
    into.fp[i]! += c.fp[i]!;
    into.fn[i]! += c.fn[i]!;
  }
  return into;
}

const ratio = (num: number, den: number): number => (den === 0 ? 0 : num / den);

function value(metric: CountMetric, tp: number, fp: number, fn: number): number {
  if (metric === 'precision') return ratio(tp, tp + fp);
  if (metric === 'recall') return ratio(tp, tp + fn);
  return ratio(2 * tp, 2 * tp + fp + fn);
}

export function countMetric(metric: CountMetric, average: MetricAverage, c: ClassCounts): number | null {
  const occurs = c.tp.map((_, i) => c.tp[i]! + c.fp[i]! + c.fn[i]! > 0);
  if (!occurs.some(Boolean)) return null;
  if (average === 'micro') {
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    return value(metric, sum(c.tp), sum(c.fp), sum(c.fn));
  }
  let total = 0;
  let classes = 0;
  for (let i = 0; i < c.tp.length; i++) {
    if (!occurs[i]) continue;
    total += value(metric, c.tp[i]!, c.fp[i]!, c.fn[i]!);
    classes++;
  }
  return total / classes;
}
