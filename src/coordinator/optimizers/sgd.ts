// Plain SGD, as tfjs 4.22 SGDOptimizer:
//   w <- w - lr * g
// (tfjs computes it as add(mul(scalar(-lr), g), w).) No state.

import { floatKernels } from '../../shared/float-kernels.ts';
import type { UpdateRule } from './update-rule.ts';

export function sgdRule(): UpdateRule {
  return {
    name: 'sgd',
    slotCount: 0,
    slotInit: [],
    apply(w: Float32Array, g: Float32Array, _slots: Float32Array[], lr: number, _t: number): void {
      // w[i] = -lr * g[i] + w[i], in float64 and rounded once (the float kernels' sgd).
      floatKernels().sgd(w, g, -lr);
    },
  };
}
