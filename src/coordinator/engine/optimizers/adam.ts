// Adam, as tfjs 4.22 AdamOptimizer, operation for operation in float32 (slot 0 = m, slot 1 = v,
// both start at 0). Every scalar is a float32 tensor in tfjs, so here f(x) = Math.fround(x):
//   b1 = f(beta1), b2 = f(beta2), c1 = f(1 - beta1), c2 = f(1 - beta2)   (1 - beta in doubles)
//   p1, p2 = beta1^t, beta2^t as tfjs's accBeta variables: f(beta), then times f(beta) once a step
//   m  <- f(f(m * b1) + f(g * c1))
//   v  <- f(f(v * b2) + f(f(g * g) * c2))
//   w  <- f(f(f(f(m / f(1 - p1)) / f(f(sqrt(f(v / f(1 - p2)))) + f(epsilon))) * f(-lr)) + w)
// epsilon is added to sqrt of the bias-corrected v (outside the sqrt) -- the same as PyTorch,
// not Keras's "epsilon hat" form. Each + - * / and sqrt of float32 values rounded to float32 is
// exactly the float32 operation, so the update gives tfjs's bits for the same gradient
// (test/unit/optimizer-adam.test.ts). The beta powers are a function of t alone (betaPower), so
// a resumed run needs no more state than t and keeps the uninterrupted run's bits (tfjs's own
// setWeights restores accBeta as pow(beta, t), which may differ from the running product in the
// last bit). The loop itself is the float kernels' adam (src/shared/float-kernels.ts).

import { MgpuError } from '../../../shared/errors.ts';
import { floatKernels } from '../../../shared/float-kernels.ts';
import type { UpdateRule } from './update-rule.ts';

/**
 * beta^t as tfjs 4.22 accumulates it in a float32 variable: f(beta) at t = 1, multiplied by
 * f(beta) in float32 at each later step (not Math.pow). Remembers its last t, so consecutive
 * steps cost one multiplication; any other t (a resumed run) is recomputed from 1.
 */
export function betaPower(beta: number): (t: number) => number {
  const b = Math.fround(beta);
  let at = 1;
  let value = b;
  return (t) => {
    if (t < at) {
      at = 1;
      value = b;
    }
    for (; at < t; at++) value = Math.fround(value * b);
    return value;
  };
}

/**
 * The Adam step shared by adam and adamw, given p1 = beta1^t and p2 = beta2^t (betaPower).
 * wdFactor multiplies w first, in float32 (1: none, an exact multiplication).
 */
export function adamStep(
  w: Float32Array,
  g: Float32Array,
  slots: Float32Array[],
  lr: number,
  p1: number,
  p2: number,
  beta1: number,
  beta2: number,
  epsilon: number,
  wdFactor: number,
): void {
  // Float32Array.of rounds each to float32: tfjs's scalars (1 - beta in doubles; p is already a
  // float32, so 1 - p rounded is the float32 subtraction tfjs does).
  const k = Float32Array.of(beta1, beta2, 1 - beta1, 1 - beta2, 1 - p1, 1 - p2, epsilon, -lr, wdFactor);
  // The loop is the float kernels' adam (C when the addon is built, else the same in JavaScript).
  floatKernels().adam(w, g, slots[0]!, slots[1]!, k);
}

export function adamRule(beta1: number, beta2: number, epsilon: number): UpdateRule {
  const p1 = betaPower(beta1);
  const p2 = betaPower(beta2);
  return {
    name: 'adam',
    slotCount: 2,
    slotInit: [0, 0],
    apply(w: Float32Array, g: Float32Array, slots: Float32Array[], lr: number, t: number): void {
      checkT(t);
      adamStep(w, g, slots, lr, p1(t), p2(t), beta1, beta2, epsilon, 1);
    },
  };
}

export function checkT(t: number): void {
  if (!(t >= 1) || !Number.isInteger(t)) throw new MgpuError('E_INTERNAL', `adam: the update count t is a 1-based integer, got ${t}`);
}
