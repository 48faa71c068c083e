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

import { floatKernels } from '../../../shared/float-kernels.ts';
import type { UpdateRule } from './update-rule.ts';

export function adagradRule(initialAccumulatorValue: number, epsilon: number): UpdateRule {
  return {
    name: 'adagrad',
    slotCount: 1,
    slotInit: [initialAccumulatorValue],
    apply(w: Float32Array, g: Float32Array, slots: Float32Array[], lr: number, _t: number): void {
      // The loop is the float kernels' adagrad (C when the addon is built, else the same in JavaScript).
      floatKernels().adagrad(w, g, slots[0]!, Float32Array.of(epsilon, -lr));
    },
  };
}
