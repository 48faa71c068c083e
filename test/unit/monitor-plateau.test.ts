// schedule 'plateau', as Keras's ReduceLROnPlateau.on_epoch_end: after `patience` evaluations
// without an improvement of more than minDelta, lr = max(lr * factor, minLr) (only while
// lr > minLr); the cooldown counter is counted down before the comparison, so `cooldown: 2`
// leaves one evaluation uncounted. The expected rates are worked out by hand below.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PlateauLr } from '../../src/coordinator/run/monitors.ts';
import { scheduleDefaults } from '../../src/config/defaults.ts';
import type { ScheduleConfig } from '../../src/config/types.ts';

const cfg: ScheduleConfig = { ...scheduleDefaults('plateau'), factor: 0.5, patience: 2, cooldown: 2, minLr: 0.15, minDelta: 0.01 };
const VALUES = [1.0, 0.999, 0.998, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6];
// e0 best 1.0 | e1 wait 1 | e2 wait 2: 0.8 -> 0.4, cooldown 2 | e3 cooldown 1, 0.9 best
// e4 cooldown 0, wait 1 | e5 wait 2: 0.4 -> 0.2 | e6 cooldown 1, not counted | e7 0.5 best
// e8 wait 1 | e9 wait 2: 0.2 -> max(0.1, minLr 0.15) | e10 cooldown 1 | e11 wait 1 | e12 wait 2, lr is minLr: no change | e13
const EXPECTED = [0.8, 0.8, 0.4, 0.4, 0.4, 0.2, 0.2, 0.2, 0.2, 0.15, 0.15, 0.15, 0.15, 0.15];

test("the learning rate after each evaluation follows Keras's rule, cooldown and minLr included", () => {
  const p = new PlateauLr(cfg, 0.8);
  const changes: number[] = [];
  const lrs = VALUES.map((v, i) => {
    if (p.observe(v)) changes.push(i);
    return p.lr;
  });
  assert.deepEqual(lrs, EXPECTED);
  assert.deepEqual(changes, [2, 5, 9]);
});

test('max mode: an improvement is more than minDelta upward', () => {
  const p = new PlateauLr({ ...cfg, monitor: 'eval.accuracy', mode: 'max', cooldown: 0, patience: 1 }, 1);
  const lrs = [0.5, 0.505, 0.6, 0.6].map((v) => (p.observe(v), p.lr));
  assert.deepEqual(lrs, [1, 0.5, 0.5, 0.25]);
});

test('the state goes through JSON (trainer-state.json) at any evaluation and the rates are the same', () => {
  for (let cut = 1; cut < VALUES.length; cut++) {
    let p = new PlateauLr(cfg, 0.8);
    const lrs = VALUES.map((v, i) => {
      if (i === cut) p = new PlateauLr(cfg, 0.8, JSON.parse(JSON.stringify(p.state())));
      p.observe(v);
      return p.lr;
    });
    assert.deepEqual(lrs, EXPECTED, `cut at ${cut}`);
  }
});
