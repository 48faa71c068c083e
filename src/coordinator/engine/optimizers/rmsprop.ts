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

import { floatKernels } from '../../../shared/float-kernels.ts';
import type { UpdateRule } from './update-rule.ts';

export function rmspropRule(decay: number, momentum: number, epsilon: number, centered: boolean): UpdateRule {
  return {
    name: 'rmsprop',
    slotCount: centered ? 3 : 2,
    slotInit: centered ? [0, 0, 0] : [0, 0],
    apply(w: Float32Array, g: Float32Array, slots: Float32Array[], lr: number, _t: number): void {
      // The loop is the float kernels' rmsprop (C when the addon is built, else the same in
      // JavaScript); Float32Array.of rounds the scalars to float32 as tfjs's scalars are.
      floatKernels().rmsprop(w, g, slots[0]!, slots[1]!, centered ? slots[2]! : null, Float32Array.of(decay, 1 - decay, momentum, epsilon, lr));
    },
  };
}
