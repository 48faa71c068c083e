// What a monitor reads from an evaluation: the eval line's own figures, a value of the config's
// metrics by its logged key (null: NaN, as a missing figure is), and for a custom metric's key
// that the module did not return, E_METRIC naming the values it did return.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EvalResult } from '../../src/coordinator/evaluate.ts';
import { monitoredValue } from '../../src/coordinator/monitors.ts';

const r: EvalResult = {
  samples: 10,
  loss: 0.5,
  accuracy: 0.8,
  topK: null,
  k: 5,
  mae: 0.1,
  outputLosses: null,
  metrics: { accuracy: 0.8, f1_macro: 0.625, auc: null, rmse: 0.25, 'mine.hits': 7, 'mine.rate': 0.7 },
};

test('eval figures and metric values by their logged key', () => {
  assert.equal(monitoredValue(r, 'eval.loss'), 0.5);
  assert.equal(monitoredValue(r, 'eval.accuracy'), 0.8);
  assert.ok(Number.isNaN(monitoredValue(r, 'eval.top_k')));
  assert.equal(monitoredValue(r, 'eval.f1_macro'), 0.625);
  assert.equal(monitoredValue(r, 'eval.rmse'), 0.25);
  assert.ok(Number.isNaN(monitoredValue(r, 'eval.auc')));
  assert.equal(monitoredValue(r, 'eval.mine.hits'), 7);
});

test('a custom metric key its module did not return is E_METRIC naming those it did', () => {
  assert.throws(() => monitoredValue(r, 'eval.mine.misses'), {
    code: 'E_METRIC',
    message: "the monitor eval.mine.misses names no value of custom metric 'mine': it returned mine.hits, mine.rate",
    hint: 'monitor one of eval.mine.hits, eval.mine.rate',
  });
});
