// Each built-in metric alone in `metrics:` asks the workers for the sums it is computed from:
// precision, recall and f1 the per-class counts, auc every row's scores, the others nothing
// beyond the shipped figures. Written out here, not read from the metric table, so that a wrong
// `needs` in the table (hidden when recall or f1 in the same config asks for the counts) fails.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { workerMetrics } from '../../src/coordinator/metrics/index.ts';
import type { MetricSpec } from '../../src/config/types.ts';

const expected: [MetricSpec, { counts: boolean; scores: boolean }][] = [
  [
    { name: 'accuracy', average: null },
    { counts: false, scores: false },
  ],
  [
    { name: 'topK', average: null },
    { counts: false, scores: false },
  ],
  [
    { name: 'precision', average: 'macro' },
    { counts: true, scores: false },
  ],
  [
    { name: 'recall', average: 'micro' },
    { counts: true, scores: false },
  ],
  [
    { name: 'f1', average: 'macro' },
    { counts: true, scores: false },
  ],
  [
    { name: 'auc', average: null },
    { counts: false, scores: true },
  ],
  [
    { name: 'mae', average: null },
    { counts: false, scores: false },
  ],
  [
    { name: 'rmse', average: null },
    { counts: false, scores: false },
  ],
];

test('each built-in metric alone asks the workers for its own sums', () => {
  for (const [spec, want] of expected) {
    const got = workerMetrics([spec]);
    assert.deepEqual({ counts: got?.counts, scores: got?.scores }, want, `metrics: [${spec.name}]`);
  }
});

test('no metrics asks nothing, and a custom module is passed on with its key path', () => {
  assert.equal(workerMetrics(null), null);
  const got = workerMetrics([
    { name: 'auc', average: null },
    { module: '/m/rows.ts', name: 'rows' },
  ]);
  assert.deepEqual(got, { counts: false, scores: true, custom: [{ module: '/m/rows.ts', keyPath: 'metrics[1]' }] });
});
