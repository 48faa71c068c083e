// Plain SGD, as tfjs 4.22 SGDOptimizer:
//   w <- w - lr * g
// (tfjs computes it as add(mul(scalar(-lr), g), w).) No state.

import type { UpdateRule } from './update-rule.ts';

export function sgdRule(): UpdateRule {
  return {
    name: 'sgd',
    slotCount: 0,
    slotInit: [],
    apply(w: Float32Array, g: Float32Array, _slots: Float32Array[], lr: number, _t: number): void {
      const n = w.length;
      const c = -lr;
      for (let i = 0; i < n; i++) {
        w[i] = c * g[i] + w[i];
      }
    },
  };
}
