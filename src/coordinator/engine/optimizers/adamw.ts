// AdamW: decoupled weight decay, the PyTorch AdamW / Keras AdamW convention -- the decay is
// scaled by this step's learning rate (not by lr/base as in Loshchilov & Hutter's paper) and
// applied before the Adam step, on the weights as they were before this update:
//   w <- w - lr * weightDecay * w          (i.e. w * (1 - lr * weightDecay))
//   then exactly the Adam step of ./adam.ts (tfjs formula, which for Adam itself coincides with
//   PyTorch's: epsilon added to sqrt of the bias-corrected v):
//   m <- beta1 * m + (1 - beta1) * g
//   v <- beta2 * v + (1 - beta2) * g^2
//   w <- w - lr * (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + epsilon)
// Slots as Adam: 0 = m, 1 = v. Every trainable value is decayed (biases included); tfjs has no
// AdamW of its own. In float32 as tfjs ops would do it: the decay is one float32 multiplication,
// f(w * f(1 - lr * weightDecay)) with 1 - lr * weightDecay in doubles (as tf.mul(w, scalar)),
// then the Adam step of ./adam.ts, operation for operation, on that decayed w.

import type { UpdateRule } from './update-rule.ts';
import { adamStep, betaPower, checkT } from './adam.ts';

export function adamwRule(beta1: number, beta2: number, epsilon: number, weightDecay: number): UpdateRule {
  const p1 = betaPower(beta1);
  const p2 = betaPower(beta2);
  return {
    name: 'adamw',
    slotCount: 2,
    slotInit: [0, 0],
    apply(w: Float32Array, g: Float32Array, slots: Float32Array[], lr: number, t: number): void {
      checkT(t);
      adamStep(w, g, slots, lr, p1(t), p2(t), beta1, beta2, epsilon, 1 - lr * weightDecay);
    },
  };
}
