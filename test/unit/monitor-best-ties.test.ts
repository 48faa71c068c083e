// checkpoint.best's rule (Keras's ModelCheckpoint with save_best_only): a new best is strictly
// better than the best so far; a tie keeps the earlier step; NaN is never a best.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BestTracker } from '../../src/coordinator/run/monitors.ts';

const run = (mode: 'min' | 'max', values: number[]) => {
  const b = new BestTracker(mode === 'max' ? 'eval.accuracy' : 'eval.loss', mode);
  const news = values.map((v, i) => b.observe(v, (i + 1) * 10, i));
  return { news, step: b.step, best: b.best };
};

test('max (accuracy): a tie with the best is not a new best, so best/ keeps the first step that reached it', () => {
  const r = run('max', [0.5, 0.75, 0.75, 0.7, 0.8, 0.8, 0.8]);
  assert.deepEqual(r.news, [true, true, false, false, true, false, false]);
  assert.equal(r.step, 50);
  assert.equal(r.best, 0.8);
});

test('min (loss): strictly lower only; NaN never counts', () => {
  const r = run('min', [NaN, 2, 1.5, 1.5, 1.6, NaN, 1.4]);
  assert.deepEqual(r.news, [false, true, true, false, false, false, true]);
  assert.equal(r.step, 70);
});

test('the state goes through JSON (trainer-state.json) and continues alike', () => {
  const values = [0.4, 0.6, 0.6, 0.5, 0.7];
  const a = new BestTracker('eval.accuracy', 'max');
  const news: boolean[] = [];
  let b = new BestTracker('eval.accuracy', 'max');
  values.forEach((v, i) => {
    news.push(a.observe(v, i, i));
    assert.equal(b.observe(v, i, i), news[i]);
    b = new BestTracker('eval.accuracy', 'max', JSON.parse(JSON.stringify(b.state())));
  });
  // Before any evaluation the best is -Infinity, which JSON cannot hold: it is written as a string.
  const fresh = JSON.parse(JSON.stringify(new BestTracker('eval.loss', 'min').state()));
  assert.equal(new BestTracker('eval.loss', 'min', fresh).best, Infinity);
  assert.deepEqual(b.state(), a.state());
});
