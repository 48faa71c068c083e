// Which built-in metric a logged key is of: a metric's own key, and `<key>_macro` / `<key>_micro`
// for the averaged ones (precision, recall, f1) only, matched whole. A key that merely starts
// like one is not of it: a custom metric module named precision_at_k logs precision_at_k.<value>,
// and f1_weighted or recall_macro_2 are no built-in keys.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { metricOfKey } from '../../src/shared/metrics-table.ts';

test('each built-in key, and the averaged ones with _macro or _micro, name their metric', () => {
  const expected: Record<string, string> = {
    accuracy: 'accuracy',
    top_k: 'topK',
    precision: 'precision',
    precision_macro: 'precision',
    recall_micro: 'recall',
    f1_macro: 'f1',
    f1_micro: 'f1',
    auc: 'auc',
    mae: 'mae',
    rmse: 'rmse',
  };
  for (const [key, metric] of Object.entries(expected)) assert.equal(metricOfKey(key), metric, key);
});

test('a key that only starts like a built-in one is of none', () => {
  for (const key of ['precision_at_k.hits', 'precision_at_k', 'f1_weighted', 'recall_macro_2', 'precision_', 'accuracy_macro', 'auc_micro', 'maes']) {
    assert.equal(metricOfKey(key), null, key);
  }
});
