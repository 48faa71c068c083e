// Momentum SGD, as tfjs 4.22 MomentumOptimizer (slot 0 = accumulation a, starts at 0):
//   a <- momentum * a + g
//   plain:    w <- w - lr * a
//   nesterov: w <- w - lr * (g + momentum * a)      (a already the new accumulation)
// The learning rate stays outside the accumulator, so a schedule changes the step at once.
// In float32, operation for operation as tfjs (f = Math.fround; mu = f(momentum), c = f(-lr),
// the scalars tfjs keeps): a <- f(f(mu * a) + g); plain w <- f(f(c * a) + w); nesterov
// w <- f(f(c * f(g + f(a * mu))) + w). The same bits as tfjs (test/unit/optimizer-momentum.test.ts).

import { floatKernels } from '../../../shared/float-kernels.ts';
import type { UpdateRule } from './update-rule.ts';

export function momentumRule(momentum: number, nesterov: boolean): UpdateRule {
  return {
    name: 'momentum',
    slotCount: 1,
    slotInit: [0],
    apply(w: Float32Array, g: Float32Array, slots: Float32Array[], lr: number, _t: number): void {
      // The loop is the float kernels' momentum (C when the addon is built, else the same in JavaScript).
      floatKernels().momentum(w, g, slots[0]!, Float32Array.of(momentum, -lr, nesterov ? 1 : 0));
    },
  };
}
