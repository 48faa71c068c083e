// Precision, recall and F1 from per-class counts summed over uneven shards equal a plain
// single-process computation over all the rows (written here from the labels and predictions,
// without the code under test), macro and micro, including a class that is never predicted and
// a class that never occurs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addCounts, countMetric, type ClassCounts } from '../../src/coordinator/metrics/counts.ts';
import { mulberry32 } from '../../src/shared/rng.ts';

const CLASSES = 5;

/** Per-class counts of one shard, as a worker reports them. */
function shardCounts(labels: number[], preds: number[]): ClassCounts {
  const c: ClassCounts = { tp: Array(CLASSES).fill(0), fp: Array(CLASSES).fill(0), fn: Array(CLASSES).fill(0) };
  labels.forEach((y, i) => {
    if (preds[i] === y) c.tp[y]!++;
    else {
      c.fp[preds[i]!]!++;
      c.fn[y]!++;
    }
  });
  return c;
}

/** The reference, over every row at once: scikit-learn's definitions, zero_division=0. */
function reference(labels: number[], preds: number[]) {
  const present = [...new Set([...labels, ...preds])].sort();
  const per = present.map((c) => {
    const predicted = preds.filter((p) => p === c).length;
    const actual = labels.filter((y) => y === c).length;
    const hits = labels.filter((y, i) => y === c && preds[i] === c).length;
    const p = predicted ? hits / predicted : 0;
    const r = actual ? hits / actual : 0;
    return { p, r, f: p + r ? (2 * p * r) / (p + r) : 0 };
  });
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const accuracy = labels.filter((y, i) => y === preds[i]).length / labels.length;
  return {
    macro: { precision: mean(per.map((x) => x.p)), recall: mean(per.map((x) => x.r)), f1: mean(per.map((x) => x.f)) },
    // One label per row: every miss is one false positive and one false negative.
    micro: { precision: accuracy, recall: accuracy, f1: accuracy },
  };
}

/** 37 rows over 3 ranks in eval chunks of 8 (8+8+8+8+5), each chunk split as the coordinator does. */
function shards(n: number, batch: number, ranks: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let start = 0; start < n; start += batch) {
    const size = Math.min(batch, n - start);
    let at = start;
    for (let r = 0; r < ranks; r++) {
      const k = Math.floor(size / ranks) + (r < size % ranks ? 1 : 0);
      if (k) out.push([at, at + k]);
      at += k;
    }
  }
  return out;
}

const close = (got: number | null, want: number, what: string) => assert.ok(got !== null && Math.abs(got - want) < 1e-12, `${what}: ${got} vs ${want}`);

for (const seed of [1, 2, 3, 4]) {
  test(`seed ${seed}: 37 rows, 5 classes (class 4 never occurs, class 3 never predicted), 3 ranks, chunks of 8`, () => {
    const rng = mulberry32(seed);
    const labels = Array.from({ length: 37 }, () => rng.below(4));
    // Right about 60% of the time; never predicts class 3.
    const preds = labels.map((y) => (rng.float() < 0.6 && y !== 3 ? y : rng.below(3)));
    let sum: ClassCounts | null = null;
    const parts = shards(37, 8, 3);
    assert.equal(parts.length, 15);
    for (const [a, b] of parts) sum = addCounts(sum, shardCounts(labels.slice(a, b), preds.slice(a, b)));
    const want = reference(labels, preds);
    for (const m of ['precision', 'recall', 'f1'] as const) {
      close(countMetric(m, 'macro', sum!), want.macro[m], `${m} macro`);
      close(countMetric(m, 'micro', sum!), want.micro[m], `${m} micro`);
    }
    assert.notEqual(countMetric('precision', 'macro', sum!), countMetric('precision', 'micro', sum!), 'macro and micro differ here');
  });
}

test('multi-label (one yes/no problem per output): micro from summed counts, macro over the outputs that occur', () => {
  // Three outputs; the third is never positive in labels or predictions (left out of macro).
  const counts: ClassCounts = { tp: [3, 1, 0], fp: [1, 0, 0], fn: [2, 4, 0] };
  close(countMetric('precision', 'micro', counts), 4 / 5, 'precision micro');
  close(countMetric('recall', 'micro', counts), 4 / 10, 'recall micro');
  close(countMetric('f1', 'micro', counts), 8 / 15, 'f1 micro');
  close(countMetric('precision', 'macro', counts), (3 / 4 + 1) / 2, 'precision macro');
  close(countMetric('recall', 'macro', counts), (3 / 5 + 1 / 5) / 2, 'recall macro');
  close(countMetric('f1', 'macro', counts), (6 / 9 + 2 / 6) / 2, 'f1 macro');
});

test('nothing positive anywhere: undefined (null), not 0 and not NaN', () => {
  assert.equal(countMetric('f1', 'macro', { tp: [0], fp: [0], fn: [0] }), null);
  assert.equal(countMetric('precision', 'micro', { tp: [0, 0], fp: [0, 0], fn: [0, 0] }), null);
  assert.equal(countMetric('precision', 'micro', { tp: [0], fp: [0], fn: [3] }), 0, 'nothing predicted positive, positives missed: precision 0');
});
