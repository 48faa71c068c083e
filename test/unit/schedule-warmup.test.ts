// warmup W > 0: base*(step+1)/W for step < W; from W on, the inner schedule at (step - W).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { learningRateAt } from '../../src/coordinator/engine/schedules.ts';
import { scheduleDefaults } from '../../src/config/defaults.ts';
import type { ScheduleConfig } from '../../src/config/types.ts';
import { assertClose } from '../helpers/close.ts';

const constant: ScheduleConfig = { ...scheduleDefaults('constant'), decaySteps: 0, decayRate: 0.96, staircase: false, alpha: 0, warmupSteps: 4 };

test('linear warmup reaches the base rate at step W-1, then the constant rate', () => {
  const steps = [0, 1, 2, 3, 4, 5, 100];
  const expected = [0.025, 0.05, 0.075, 0.1, 0.1, 0.1, 0.1];
  assertClose(
    steps.map((k) => learningRateAt(0.1, constant, k)),
    expected,
    1e-12,
    0,
    'warmup + constant',
  );
});

test('warmup delays the exponential decay by W steps', () => {
  const s: ScheduleConfig = { ...constant, name: 'exponential', decaySteps: 10, decayRate: 0.5, warmupSteps: 5 };
  const inner: ScheduleConfig = { ...s, warmupSteps: 0 };
  assertClose(
    [0, 4].map((k) => learningRateAt(1, s, k)),
    [0.2, 1],
    1e-12,
    0,
    'warmup part',
  );
  for (const k of [5, 6, 14, 15, 25, 105]) {
    assert.equal(learningRateAt(1, s, k), learningRateAt(1, inner, k - 5), `step ${k}`);
  }
  assertClose([learningRateAt(1, s, 15)], [0.5], 1e-12, 0, 'one decay period after warmup');
});

test('warmup delays the cosine decay by W steps (it starts from the base rate)', () => {
  const s: ScheduleConfig = { ...constant, name: 'cosine', decaySteps: 100, alpha: 0.1, warmupSteps: 10 };
  const inner: ScheduleConfig = { ...s, warmupSteps: 0 };
  assertClose(
    [0, 9, 10, 60, 110, 500].map((k) => learningRateAt(2, s, k)),
    [0.2, 2, 2, 2 * (0.9 * 0.5 + 0.1), 0.2, 0.2],
    1e-12,
    1e-15,
    'warmup + cosine',
  );
  for (const k of [10, 11, 50, 109, 110, 111]) {
    assert.equal(learningRateAt(2, s, k), learningRateAt(2, inner, k - 10), `step ${k}`);
  }
});

test('warmupSteps 1 is the inner schedule shifted by one step', () => {
  const s: ScheduleConfig = { ...constant, warmupSteps: 1 };
  assert.equal(learningRateAt(0.3, s, 0), 0.3);
  assert.equal(learningRateAt(0.3, s, 1), 0.3);
});
