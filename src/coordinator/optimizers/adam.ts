// Adam, as tfjs 4.22 AdamOptimizer (slot 0 = m, slot 1 = v, both start at 0):
//   m <- beta1 * m + (1 - beta1) * g
//   v <- beta2 * v + (1 - beta2) * g^2
//   w <- w - lr * (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + epsilon)
// epsilon is added to sqrt of the bias-corrected v (outside the sqrt) -- the same as PyTorch,
// not Keras's "epsilon hat" form. tfjs keeps accBeta = beta^t as a float32 variable multiplied
// once per step; here beta^t is Math.pow in float64 (the same value up to float32 rounding).

import { MgpuError } from '../../shared/errors.ts';
import type { UpdateRule } from './update-rule.ts';

/** The Adam step shared by adam and adamw. wdFactor multiplies w first (1 for plain Adam). */
export function adamStep(
  w: Float32Array,
  g: Float32Array,
  slots: Float32Array[],
  lr: number,
  t: number,
  beta1: number,
  beta2: number,
  epsilon: number,
  wdFactor: number,
): void {
  if (!(t >= 1)) throw new MgpuError('E_INTERNAL', `adam: the update count t is 1-based, got ${t}`);
  const n = w.length;
  const ms = slots[0];
  const vs = slots[1];
  const b1 = beta1;
  const b2 = beta2;
  const omb1 = 1 - beta1;
  const omb2 = 1 - beta2;
  // m/bc1 / (sqrt(v/bc2) + eps) regrouped as (c1*m) / (sqrt(v)*c2 + eps): two divisions fewer
  // per element; in float64 the difference is ~1e-16 relative, far below float32 rounding.
  const c1 = -lr / (1 - Math.pow(beta1, t));
  const c2 = 1 / Math.sqrt(1 - Math.pow(beta2, t));
  const eps = epsilon;
  if (wdFactor === 1) {
    for (let i = 0; i < n; i++) {
      const gi = g[i];
      const m = ms![i]! * b1 + gi! * omb1;
      const v = vs![i]! * b2 + gi! * gi! * omb2;
      ms![i] = m;
      vs![i] = v;
      w[i] = (c1 * m) / (Math.sqrt(v) * c2 + eps) + w[i]!;
    }
  } else {
    const f = wdFactor;
    for (let i = 0; i < n; i++) {
      const gi = g[i];
      const m = ms![i]! * b1 + gi! * omb1;
      const v = vs![i]! * b2 + gi! * gi! * omb2;
      ms![i] = m;
      vs![i] = v;
      w[i] = (c1 * m) / (Math.sqrt(v) * c2 + eps) + Math.fround(w[i]! * f);
    }
  }
}

export function adamRule(beta1: number, beta2: number, epsilon: number): UpdateRule {
  return {
    name: 'adam',
    slotCount: 2,
    slotInit: [0, 0],
    apply(w: Float32Array, g: Float32Array, slots: Float32Array[], lr: number, t: number): void {
      adamStep(w, g, slots, lr, t, beta1, beta2, epsilon, 1);
    },
  };
}
