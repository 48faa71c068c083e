// The loss of a model with one or several outputs, as Keras's fit computes it: each output k has
// its loss function and a weight lw_k (lossWeights, default 1), and a sample's loss is
// Σ_k lw_k · l_k(y_k, p_k). One output of weight 1 is that output's loss, with no multiplication.
import type { Tensor, Tensor1D } from '@tensorflow/tfjs';
import { lossKeyPath, lossOf } from '../config/loss.ts';
import type { LossEntry, LossSpec } from '../config/types.ts';
import { MgpuError } from '../shared/errors.ts';
import type { TF } from './backend.ts';
import { customLossFns, type CustomLossModule } from './custom-loss.ts';
import { lossFns, type LossFns } from './losses.ts';

export interface OutputLoss {
  output: string;
  loss: LossEntry;
  custom: CustomLossModule | null; // a custom loss's loaded module
  fns: LossFns;
  weight: number;
}

/**
 * One entry per model output, in the model's order. An output the config names no loss for is
 * refused by the coordinator before any step (model-io.ts there); here it throws if used.
 */
export function outputLosses(
  tf: TF,
  outputNames: string[],
  spec: LossSpec,
  weights: Record<string, number> | null,
  modules: Map<string, CustomLossModule>,
): OutputLoss[] {
  return outputNames.map((output) => {
    const loss = lossOf(spec, output);
    if (!loss) throw new MgpuError('E_CONFIG', `loss: no loss for the model's output '${output}'`);
    const weight = weights?.[output] ?? 1;
    if (typeof loss === 'string') return { output, loss, custom: null, fns: lossFns(tf, loss), weight };
    const custom = modules.get(lossKeyPath(spec, output));
    if (!custom) throw new MgpuError('E_INTERNAL', `${lossKeyPath(spec, output)}: the custom loss ${loss.module} was not loaded`);
    return { output, loss, custom, fns: customLossFns(tf, custom), weight };
  });
}

/** Each output's per-sample loss [n] (its own weight not applied). */
export function perOutput(tf: TF, losses: OutputLoss[], ys: Tensor[], preds: Tensor[]): Tensor1D[] {
  return losses.map((l, k) => l.fns.perSample(ys[k]!, preds[k]!));
}

/** Σ_k lw_k · l_k per sample [n]. */
export function combined(tf: TF, losses: OutputLoss[], each: Tensor1D[]): Tensor1D {
  if (losses.length === 1 && losses[0]!.weight === 1) return each[0]!;
  return tf.addN(each.map((l, k) => (losses[k]!.weight === 1 ? l : tf.mul(l, losses[k]!.weight)))) as Tensor1D;
}
