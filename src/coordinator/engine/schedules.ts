// Learning-rate schedules: the rate for an update, as a pure function of the 0-based step
// (the number of updates already applied before this one).
//
//   constant:     lr(s) = base
//   exponential:  lr(s) = base * decayRate^(s / decaySteps)          (tf.keras ExponentialDecay)
//                 staircase: the exponent is floor(s / decaySteps)
//   cosine:       lr(s) = base * ((1 - alpha) * 0.5 * (1 + cos(pi * min(s, decaySteps) / decaySteps)) + alpha)
//                 (tf.keras CosineDecay without warmup: after decaySteps it stays at base * alpha)
//   plateau:      lr(s) = base, where the training loop passes as base the rate the plateau
//                 rule (monitors.ts, PlateauLr) has reached at the evaluations so far
//   warmup W > 0: for s < W,  lr(s) = base * (s + 1) / W   (linear, reaching base at s = W - 1)
//                 for s >= W, lr(s) = inner schedule at (s - W)  (so the decay starts after warmup)
//
// decaySteps must be > 0 for exponential and cosine (validate.ts enforces it; checked here too).

import type { ScheduleConfig } from '../../config/types.ts';
import { ConfigError, MgpuError } from '../../shared/errors.ts';

export function learningRateAt(base: number, s: ScheduleConfig, step: number): number {
  if (!Number.isInteger(step) || step < 0) {
    throw new MgpuError('E_INTERNAL', `learningRateAt: step must be a non-negative integer, got ${step}`);
  }
  const w = s.warmupSteps;
  if (w > 0) {
    if (step < w) return (base * (step + 1)) / w;
    step -= w;
  }
  switch (s.name) {
    case 'constant':
    case 'plateau':
      return base;
    case 'exponential': {
      const p = step / positiveDecaySteps(s);
      return base * Math.pow(s.decayRate, s.staircase ? Math.floor(p) : p);
    }
    case 'cosine': {
      const d = positiveDecaySteps(s);
      const cosine = 0.5 * (1 + Math.cos((Math.PI * Math.min(step, d)) / d));
      return base * ((1 - s.alpha) * cosine + s.alpha);
    }
    default: {
      const name: never = s.name;
      throw new ConfigError('schedule.name', `unknown schedule '${String(name)}'`, 'use one of constant, exponential, cosine, plateau');
    }
  }
}

function positiveDecaySteps(s: ScheduleConfig): number {
  if (!(s.decaySteps > 0)) {
    throw new ConfigError(
      'schedule.decaySteps',
      `must be > 0 for the '${s.name}' schedule, got ${s.decaySteps}`,
      'set schedule.decaySteps to the number of updates the decay spans',
    );
  }
  return s.decaySteps;
}
