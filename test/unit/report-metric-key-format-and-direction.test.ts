// How the report reads a logged metric key: which way it improves (the best row) and whether it
// is shown as a percentage. Every built-in metric's key, with and without `_macro`/`_micro` and an
// output suffix; a custom module's value has no known direction; an unknown key counts as higher
// is better and shows as a number, as before the metric table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fmtMetric, metricBetter } from '../../src/report/summary.ts';

const OUTPUTS = ['class', 'box'];

test('each built-in key improves its own way, with or without an output; a custom value has no direction', () => {
  const expected: Record<string, 'max' | 'min'> = {
    accuracy: 'max',
    top_k: 'max',
    precision_macro: 'max',
    recall_micro: 'max',
    f1_macro: 'max',
    auc: 'max',
    mae: 'min',
    rmse: 'min',
    weird_metric: 'max',
  };
  for (const [key, better] of Object.entries(expected)) {
    assert.equal(metricBetter(key), better, key);
    assert.equal(metricBetter(`${key}.box`, OUTPUTS), better, `${key}.box`);
  }
  assert.equal(metricBetter('hits.rate'), null);
  assert.equal(metricBetter('hits.rate.class', OUTPUTS), null);
});

test('accuracy and top_k show as percentages, the other metrics as numbers', () => {
  for (const key of ['accuracy', 'top_k', 'accuracy.class', 'top_k.box']) assert.equal(fmtMetric(key, OUTPUTS)(0.5), '50.00%', key);
  for (const key of ['precision_macro', 'f1_micro.class', 'auc', 'mae.box', 'rmse', 'accuracy_macro', 'hits.rate']) {
    assert.equal(fmtMetric(key, OUTPUTS)(0.5), '0.5', key);
  }
});
