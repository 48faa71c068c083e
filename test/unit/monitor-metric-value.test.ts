// What a monitor reads from an evaluation: the eval line's own figures, a value of the config's
// metrics by its logged key (null: NaN, as a missing figure is), and for a custom metric's key
// that the module did not return, E_METRIC naming the values it did return.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EvalResult } from '../../src/coordinator/engine/eval-result.ts';
import { monitoredValue } from '../../src/coordinator/run/monitors.ts';

const r: EvalResult = {
  samples: 10,
  loss: 0.5,
  accuracy: 0.8,
  topK: null,
  k: 5,
  mae: 0.1,
  outputLosses: null,
  outputs: null,
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

test('several outputs: one output figure by eval.<figure>.<output>, a metric by eval.<key>.<output>', () => {
  const several: EvalResult = {
    ...r,
    accuracy: null,
    mae: NaN,
    outputLosses: { class: 0.4, box: 0.2 },
    outputs: { class: { loss: 0.4, accuracy: 0.75, topK: 0.9, mae: 0.3 }, box: { loss: 0.2, accuracy: null, topK: null, mae: 0.35 } },
    metrics: { 'f1_macro.class': 0.6, 'rmse.box': 0.45, 'mine.hits.box': 3 },
  };
  assert.equal(monitoredValue(several, 'eval.loss'), 0.5);
  assert.equal(monitoredValue(several, 'eval.loss.class'), 0.4);
  assert.equal(monitoredValue(several, 'eval.loss.box'), 0.2);
  assert.equal(monitoredValue(several, 'eval.accuracy.class'), 0.75);
  assert.equal(monitoredValue(several, 'eval.top_k.class'), 0.9);
  assert.equal(monitoredValue(several, 'eval.mae.box'), 0.35);
  assert.ok(Number.isNaN(monitoredValue(several, 'eval.accuracy.box')));
  assert.equal(monitoredValue(several, 'eval.f1_macro.class'), 0.6);
  assert.equal(monitoredValue(several, 'eval.rmse.box'), 0.45);
  assert.equal(monitoredValue(several, 'eval.mine.hits.box'), 3);
});
