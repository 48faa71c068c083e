// cosine: base * ((1-alpha)*0.5*(1+cos(pi*min(step,decaySteps)/decaySteps)) + alpha)
// (tf.keras.optimizers.schedules.CosineDecay, no warmup).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { learningRateAt } from '../../src/coordinator/engine/schedules.ts';
import { scheduleDefaults } from '../../src/config/defaults.ts';
import type { ScheduleConfig } from '../../src/config/types.ts';
import { assertClose } from '../helpers/close.ts';

const s: ScheduleConfig = { ...scheduleDefaults('cosine'), decaySteps: 100, decayRate: 0.96, staircase: false, alpha: 0, warmupSteps: 0 };

test('cosine with alpha 0 goes from base to 0 over decaySteps and stays there', () => {
  const steps = [0, 25, 50, 75, 100, 101, 5000];
  const expected = [0.2, 0.2 * (0.5 + 0.5 * Math.SQRT1_2), 0.1, 0.2 * (0.5 - 0.5 * Math.SQRT1_2), 0, 0, 0];
  assertClose(
    steps.map((k) => learningRateAt(0.2, s, k)),
    expected,
    1e-12,
    1e-15,
    'cosine alpha 0',
  );
});

test('cosine with alpha 0.1 floors at base*alpha', () => {
  const a: ScheduleConfig = { ...s, alpha: 0.1 };
  const steps = [0, 50, 100, 200];
  const expected = [0.2, 0.2 * (0.9 * 0.5 + 0.1), 0.02, 0.02];
  assertClose(
    steps.map((k) => learningRateAt(0.2, a, k)),
    expected,
    1e-12,
    1e-15,
    'cosine alpha 0.1',
  );
});

test('cosine is non-increasing over its span', () => {
  let prev = Infinity;
  for (let k = 0; k <= 120; k++) {
    const lr = learningRateAt(1, s, k);
    assert.ok(lr <= prev, `step ${k}: ${lr} > ${prev}`);
    prev = lr;
  }
});

test('cosine needs decaySteps > 0', () => {
  assert.throws(() => learningRateAt(0.1, { ...s, decaySteps: 0 }, 0), { code: 'E_CONFIG', keyPath: 'schedule.decaySteps' });
});
