// training.earlyStopping in `min` mode (a loss): an improvement is a value more than minDelta
// below the best (Keras: value - (-minDelta) < best), so a tie, landing exactly minDelta below
// the best or on it with minDelta 0, waits. The values are exact in binary, so a tie is a tie.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EarlyStopper } from '../../src/coordinator/run/monitors.ts';
import type { EarlyStoppingConfig } from '../../src/config/types.ts';

const cfg = (minDelta: number, patience: number): EarlyStoppingConfig => ({ monitor: 'eval.loss', mode: 'min', patience, minDelta, restoreBest: false });

/** Per evaluation: [stop, wait] after observing it. */
function decisions(c: EarlyStoppingConfig, values: number[]): [boolean, number][] {
  const es = new EarlyStopper(c);
  return values.map((v, i) => [es.observe(v, i).stop, es.wait]);
}

test('min, minDelta 0: a loss equal to the best waits, and patience 1 stops there', () => {
  assert.deepEqual(decisions(cfg(0, 1), [1, 1]), [
    [false, 0],
    [true, 1],
  ]);
});

test('min, minDelta 0.25: a loss exactly 0.25 below the best waits; one a little further below improves', () => {
  assert.deepEqual(decisions(cfg(0.25, 1), [1, 0.75]), [
    [false, 0],
    [true, 1],
  ]);
  // patience 2: 1 best | 0.75 (0.75 + 0.25 = 1, not < 1): wait 1 | 0.5 (0.75 < 1): best 0.5 |
  // 0.25 (0.5, not < 0.5): wait 1 | 0.25: wait 2, stop
  assert.deepEqual(decisions(cfg(0.25, 2), [1, 0.75, 0.5, 0.25, 0.25]), [
    [false, 0],
    [false, 1],
    [false, 0],
    [false, 1],
    [true, 2],
  ]);
  const es = new EarlyStopper(cfg(0.25, 5));
  [1, 0.75, 0.5, 0.25].forEach((v, i) => es.observe(v, i));
  assert.equal(es.best, 0.5, 'the ties did not move the best');
  assert.equal(es.bestStep, 2);
});
