// constant: the base rate at every step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { learningRateAt } from '../../src/coordinator/engine/schedules.ts';
import { scheduleDefaults } from '../../src/config/defaults.ts';
import type { ScheduleConfig } from '../../src/config/types.ts';

const s: ScheduleConfig = { ...scheduleDefaults('constant'), decaySteps: 0, decayRate: 0.96, staircase: false, alpha: 0, warmupSteps: 0 };

test('constant schedule returns the base rate at every step (decaySteps unused)', () => {
  for (const step of [0, 1, 2, 99, 1000, 123456]) assert.equal(learningRateAt(0.01, s, step), 0.01);
});

test('a step that is not a non-negative integer is rejected', () => {
  for (const step of [-1, 0.5, Number.NaN, Infinity]) {
    assert.throws(() => learningRateAt(0.01, s, step), { code: 'E_INTERNAL' });
  }
});
