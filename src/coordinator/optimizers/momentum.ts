// Momentum SGD, as tfjs 4.22 MomentumOptimizer (slot 0 = accumulation a, starts at 0):
//   a <- momentum * a + g
//   plain:    w <- w - lr * a
//   nesterov: w <- w - lr * (g + momentum * a)      (a already the new accumulation)
// The learning rate stays outside the accumulator, so a schedule changes the step at once.

import type { UpdateRule } from './update-rule.ts';

export function momentumRule(momentum: number, nesterov: boolean): UpdateRule {
  return {
    name: 'momentum',
    slotCount: 1,
    slotInit: [0],
    apply(w: Float32Array, g: Float32Array, slots: Float32Array[], lr: number, _t: number): void {
      const n = w.length;
      const acc = slots[0];
      const m = momentum;
      const c = -lr;
      if (nesterov) {
        for (let i = 0; i < n; i++) {
          const gi = g[i];
          const a = m * acc![i]! + gi!;
          acc![i] = a;
          w[i] = c * (gi! + a * m) + w[i]!;
        }
      } else {
        for (let i = 0; i < n; i++) {
          const a = m * acc![i]! + g[i]!;
          acc![i] = a;
          w[i] = c * a + w[i]!;
        }
      }
    },
  };
}
