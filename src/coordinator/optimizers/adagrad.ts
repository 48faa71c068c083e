// Adagrad, as tfjs 4.22 AdagradOptimizer (slot 0 = accumulator, starts at
// initialAccumulatorValue):
//   acc <- acc + g^2
//   w   <- w - lr * g / sqrt(acc + epsilon)
// epsilon is inside the sqrt. tfjs takes no epsilon argument for Adagrad and always uses the
// backend's epsilon (1e-7 on float32 backends); here it is config.optimizer.epsilon, whose
// default 1e-7 is that value.
// In float32, operation for operation as tfjs (f = Math.fround; the scalars f(epsilon), f(-lr)):
//   acc <- f(acc + f(g * g));  w <- f(f(f(g / f(sqrt(f(acc + eps)))) * f(-lr)) + w)
// The same bits as tfjs (test/unit/optimizer-adagrad.test.ts).

import type { UpdateRule } from './update-rule.ts';

export function adagradRule(initialAccumulatorValue: number, epsilon: number): UpdateRule {
  return {
    name: 'adagrad',
    slotCount: 1,
    slotInit: [initialAccumulatorValue],
    apply(w: Float32Array, g: Float32Array, slots: Float32Array[], lr: number, _t: number): void {
      const n = w.length;
      const accs = slots[0]!;
      const eps = Math.fround(epsilon);
      const c = Math.fround(-lr);
      for (let i = 0; i < n; i++) {
        const gi = g[i]!;
        const acc = Math.fround(accs[i]! + Math.fround(gi * gi));
        accs[i] = acc;
        w[i] = Math.fround(Math.fround(gi / Math.fround(Math.sqrt(Math.fround(acc + eps)))) * c) + w[i]!;
      }
    },
  };
}
