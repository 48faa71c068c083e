// exponential: base * decayRate^(step/decaySteps), floor(step/decaySteps) if staircase
// (tf.keras.optimizers.schedules.ExponentialDecay).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { learningRateAt } from '../../src/coordinator/engine/schedules.ts';
import { scheduleDefaults } from '../../src/config/defaults.ts';
import type { ScheduleConfig } from '../../src/config/types.ts';
import { assertClose } from '../helpers/close.ts';

const smooth: ScheduleConfig = { ...scheduleDefaults('exponential'), decaySteps: 100, decayRate: 0.5, staircase: false, alpha: 0, warmupSteps: 0 };
const stairs: ScheduleConfig = { ...smooth, staircase: true };

test('exponential (smooth) decays continuously', () => {
  const steps = [0, 1, 50, 99, 100, 150, 200, 1000];
  const expected = [0.1, 0.1 * 0.5 ** 0.01, 0.1 * Math.SQRT1_2, 0.1 * 0.5 ** 0.99, 0.05, 0.05 * Math.SQRT1_2, 0.025, 0.1 / 1024];
  assertClose(
    steps.map((k) => learningRateAt(0.1, smooth, k)),
    expected,
    1e-12,
    0,
    'smooth exponential',
  );
});

test('exponential (staircase) holds each rate for decaySteps steps', () => {
  const steps = [0, 1, 99, 100, 101, 199, 200, 1000];
  const expected = [0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.1 / 1024];
  assertClose(
    steps.map((k) => learningRateAt(0.1, stairs, k)),
    expected,
    1e-12,
    0,
    'staircase exponential',
  );
});

test('exponential with the default decayRate 0.96 over 1000 steps', () => {
  const s: ScheduleConfig = { ...smooth, decaySteps: 1000, decayRate: 0.96 };
  assertClose([learningRateAt(1, s, 500), learningRateAt(1, s, 2500)], [Math.sqrt(0.96), 0.96 ** 2.5], 1e-12, 0, 'default rate');
});

test('exponential needs decaySteps > 0', () => {
  assert.throws(() => learningRateAt(0.1, { ...smooth, decaySteps: 0 }, 5), { code: 'E_CONFIG', keyPath: 'schedule.decaySteps' });
});
