// Plain SGD, as tfjs 4.22 SGDOptimizer:
//   w <- w - lr * g
// (tfjs computes it as add(mul(scalar(-lr), g), w): in float32, f(f(f(-lr) * g) + w) with
// f = Math.fround, two roundings; the same bits as tfjs, test/unit/optimizer-sgd.test.ts.) No state.

import { floatKernels } from '../../../shared/float-kernels.ts';
import type { UpdateRule } from './update-rule.ts';

export function sgdRule(): UpdateRule {
  return {
    name: 'sgd',
    slotCount: 0,
    slotInit: [],
    apply(w: Float32Array, g: Float32Array, _slots: Float32Array[], lr: number, _t: number): void {
      // w[i] = f(f(f(-lr) * g[i]) + w[i]), in the float kernels (C when built, else JavaScript).
      floatKernels().sgd(w, g, -lr);
    },
  };
}
