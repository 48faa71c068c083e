// training.earlyStopping's rule, as Keras's EarlyStopping.on_epoch_end: `wait` counts the
// evaluations since the last improvement (a change of more than minDelta from the best, the
// best moving only on an improvement), and the run stops once wait >= patience, never at the
// first evaluation. Expected decisions are worked out by hand below.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EarlyStopper } from '../../src/coordinator/run/monitors.ts';
import type { EarlyStoppingConfig } from '../../src/config/types.ts';

const cfg = (over: Partial<EarlyStoppingConfig> = {}): EarlyStoppingConfig => ({
  monitor: 'eval.loss',
  mode: 'min',
  patience: 2,
  minDelta: 0.1,
  restoreBest: false,
  ...over,
});

/** The index of the evaluation that stops the run, or -1. */
function stopsAt(c: EarlyStoppingConfig, values: number[]): number {
  const es = new EarlyStopper(c);
  return values.findIndex((v, i) => es.observe(v, i).stop);
}

test('min, patience 2, minDelta 0.1: stops at the second evaluation in a row without an improvement of more than 0.1', () => {
  // 1.0 best | 0.95 no (1.05 !< 1.0), wait 1 | 0.85 yes, best 0.85 | 0.9 no, wait 1 | 0.88 no, wait 2: stop
  assert.equal(stopsAt(cfg(), [1.0, 0.95, 0.85, 0.9, 0.88, 0.7, 0.8, 0.75, 0.79]), 4);
  // With minDelta 0 the same values improve at 0.95 and 0.85: the stop comes at 0.88 too (0.9, 0.88 > 0.85)
  assert.equal(stopsAt(cfg({ minDelta: 0 }), [1.0, 0.95, 0.85, 0.9, 0.88]), 4);
  // patience 3: 0.7 improves (0.8 < 0.85); then 0.8, 0.75 (0.85 !< 0.7), 0.79: wait 3 at the last
  assert.equal(stopsAt(cfg({ patience: 3 }), [1.0, 0.95, 0.85, 0.9, 0.88, 0.7, 0.8, 0.75, 0.79]), 8);
});

test('the best moves only on an improvement: a smaller gain is not kept as the best', () => {
  const es = new EarlyStopper(cfg());
  es.observe(1.0, 10);
  es.observe(0.95, 20);
  assert.equal(es.best, 1.0);
  assert.equal(es.bestStep, 10);
  assert.equal(es.wait, 1);
});

test('max (accuracy): an improvement is more than minDelta upward; ties wait', () => {
  assert.equal(stopsAt(cfg({ monitor: 'eval.accuracy', mode: 'max', minDelta: 0, patience: 1 }), [0.5, 0.6, 0.6]), 2);
  assert.equal(stopsAt(cfg({ monitor: 'eval.accuracy', mode: 'max', minDelta: 0.05, patience: 2 }), [0.5, 0.6, 0.62, 0.7, 0.7, 0.74]), 5);
});

test('never at the first evaluation: patience 0 with a NaN first', () => {
  assert.equal(stopsAt(cfg({ patience: 0 }), [NaN, NaN, NaN]), 1);
  assert.equal(stopsAt(cfg({ patience: 0 }), [1, 2]), 1);
});

test('restoreBest keeps the weights of the first evaluation and of every improvement', () => {
  const es = new EarlyStopper(cfg({ restoreBest: true }));
  const snaps = [1.0, 0.95, 0.85, 0.9].map((v, i) => es.observe(v, (i + 1) * 5).snapshot);
  assert.deepEqual(snaps, [true, false, true, false]);
  assert.equal(es.snapshotStep, 15);
  const nan = new EarlyStopper(cfg({ restoreBest: true }));
  assert.equal(nan.observe(NaN, 5).snapshot, true, 'the first evaluation is kept even when it is no improvement');
  assert.equal(nan.snapshotStep, 5);
});

test('the state goes through JSON (trainer-state.json) mid-run and the stop comes at the same evaluation', () => {
  const values = [1.0, 0.95, 0.85, 0.9, 0.88, 0.7];
  for (let cut = 1; cut < values.length; cut++) {
    let es = new EarlyStopper(cfg({ restoreBest: true }));
    const stops = values.map((v, i) => {
      if (i === cut) es = new EarlyStopper(es.cfg, JSON.parse(JSON.stringify(es.state())));
      return es.observe(v, i).stop;
    });
    assert.equal(stops.indexOf(true), 4, `cut at ${cut}`);
  }
});
