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
// In float32, operation for operation as tfjs (f = Math.fround; the scalars f(rho), f(1 - rho)
// with 1 - rho in doubles, f(momentum), f(lr), f(epsilon)):
//   ms  <- f(f(ms * rho) + f(f(g * g) * (1 - rho)))
//   mg  <- f(f(mg * rho) + f(g * (1 - rho)))
//   q    = f(f(g * lr) / f(sqrt(f(ms + eps))))  or, centered, f(sqrt(f(ms - f(f(mg * mg) + eps))))
//   mom <- f(f(mom * momentum) + q);  w <- f(w - mom)
// The same bits as tfjs (test/unit/optimizer-rmsprop.test.ts).

import type { UpdateRule } from './update-rule.ts';

export function rmspropRule(decay: number, momentum: number, epsilon: number, centered: boolean): UpdateRule {
  return {
    name: 'rmsprop',
    slotCount: centered ? 3 : 2,
    slotInit: centered ? [0, 0, 0] : [0, 0],
    apply(w: Float32Array, g: Float32Array, slots: Float32Array[], lr: number, _t: number): void {
      const n = w.length;
      const mss = slots[0]!;
      const moms = slots[1]!;
      const rho = Math.fround(decay);
      const omr = Math.fround(1 - decay);
      const mu = Math.fround(momentum);
      const eps = Math.fround(epsilon);
      const lr32 = Math.fround(lr);
      if (centered) {
        const mgs = slots[2]!;
        for (let i = 0; i < n; i++) {
          const gi = g[i]!;
          const ms = Math.fround(Math.fround(mss[i]! * rho) + Math.fround(Math.fround(gi * gi) * omr));
          const mg = Math.fround(Math.fround(mgs[i]! * rho) + Math.fround(gi * omr));
          const q = Math.fround(Math.fround(gi * lr32) / Math.fround(Math.sqrt(Math.fround(ms - Math.fround(Math.fround(mg * mg) + eps)))));
          const mom = Math.fround(Math.fround(moms[i]! * mu) + q);
          mss[i] = ms;
          mgs[i] = mg;
          moms[i] = mom;
          w[i] = w[i]! - mom;
        }
      } else {
        for (let i = 0; i < n; i++) {
          const gi = g[i]!;
          const ms = Math.fround(Math.fround(mss[i]! * rho) + Math.fround(Math.fround(gi * gi) * omr));
          const mom = Math.fround(Math.fround(moms[i]! * mu) + Math.fround(Math.fround(gi * lr32) / Math.fround(Math.sqrt(Math.fround(ms + eps)))));
          mss[i] = ms;
          moms[i] = mom;
          w[i] = w[i]! - mom;
        }
      }
    },
  };
}
