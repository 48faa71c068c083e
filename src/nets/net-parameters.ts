// A network's trainable parameters as tfjs builds it: the model is built (kernels at zero, which
// makes VGG-16's 138M a matter of milliseconds rather than the 4 s of drawing them; the shapes
// are the same), its trainable weights counted and the model disposed.
import type { NetOptions, TF } from './net-options.ts';
import { buildNet, type NetName } from './nets-table.ts';

export function trainableParameters(tf: TF, name: NetName, options: Partial<NetOptions> = {}): number {
  const model = buildNet(tf, name, { ...options, zeroInit: true });
  try {
    return model.trainableWeights.reduce((sum, w) => sum + w.shape.reduce<number>((a, d) => a * (d ?? 1), 1), 0);
  } finally {
    model.dispose();
  }
}
