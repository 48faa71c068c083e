// RMSProp, as tfjs 4.22 RMSPropOptimizer. Slots: 0 = ms (mean square, "rms"), 1 = mom
// ("momentum" accumulator, kept even when momentum is 0, as tfjs does), 2 = mg (mean gradient,
// only when centered). All start at 0.
//   ms  <- rho * ms + (1 - rho) * g^2
//   plain:    mom <- momentum * mom + lr * g / sqrt(ms + epsilon)
//   centered: mg  <- rho * mg + (1 - rho) * g
//             mom <- momentum * mom + lr * g / sqrt(ms - (mg^2 + epsilon))
//   w <- w - mom
// Note: epsilon sits INSIDE the sqrt, and in the centered form tfjs SUBTRACTS it
// (sqrt(ms - mg^2 - eps), where TensorFlow adds it); it is matched here as is, so a centered
// coordinate whose gradient variance is below epsilon becomes NaN exactly as in tfjs.
// The learning rate is folded into the momentum accumulator (TF1 style).

import type { UpdateRule } from './update-rule.ts';

export function rmspropRule(decay: number, momentum: number, epsilon: number, centered: boolean): UpdateRule {
  return {
    name: 'rmsprop',
    slotCount: centered ? 3 : 2,
    slotInit: centered ? [0, 0, 0] : [0, 0],
    apply(w: Float32Array, g: Float32Array, slots: Float32Array[], lr: number, _t: number): void {
      const n = w.length;
      const mss = slots[0];
      const moms = slots[1];
      const rho = decay;
      const omr = 1 - decay;
      const mu = momentum;
      const eps = epsilon;
      if (centered) {
        const mgs = slots[2];
        for (let i = 0; i < n; i++) {
          const gi = g[i];
          const ms = mss![i]! * rho + gi! * gi! * omr;
          const mg = mgs![i]! * rho + gi! * omr;
          const mom = moms![i]! * mu + (gi! * lr) / Math.sqrt(ms - (mg * mg + eps));
          mss![i] = ms;
          mgs![i] = mg;
          moms![i] = mom;
          w[i] = w[i]! - mom;
        }
      } else {
        for (let i = 0; i < n; i++) {
          const gi = g[i];
          const ms = mss![i]! * rho + gi! * gi! * omr;
          const mom = moms![i]! * mu + (gi! * lr) / Math.sqrt(ms + eps);
          mss![i] = ms;
          moms![i] = mom;
          w[i] = w[i]! - mom;
        }
      }
    },
  };
}
