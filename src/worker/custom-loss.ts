// A custom loss (`loss: { module: ./my-loss.ts }`, or one output's `loss.<output>`): its module's
// default export (yTrue, yPred, tf) => Tensor gives each sample's loss, inside the gradient tape,
// so it must be made of differentiable tfjs ops. Loaded by every worker at init; checked once at
// the first attach on a one-row batch of zeros, so a module that cannot give a loss per sample
// stops the run before its first step (E_LOSS, exit 2), naming the file and the config key.
import type { LayersModel, Tensor, Tensor1D } from '@tensorflow/tfjs';
import { lossKeyPath, lossOf } from '../config/loss.ts';
import type { LossSpec } from '../config/types.ts';
import { MgpuError, messageOf } from '../shared/errors.ts';
import type { RowFormat } from '../shared/protocol.ts';
import type { TF } from './backend.ts';
import { meanPerSample, type LossFns } from './losses.ts';
import { importDefaultFunction, isTensor, onZeroRow } from './user-modules.ts';

/** A custom loss module's default export: the loss of each sample, shape [n] or [n, ...]. */
export type LossFn = (yTrue: Tensor, yPred: Tensor, tf: TF) => Tensor;

export interface CustomLossModule {
  keyPath: string; // loss, or loss.<output>: for messages
  file: string;
  fn: LossFn;
}

const HINT =
  'export default function (yTrue, yPred, tf) { return ... } : a tensor of shape [n] (or [n, ...], averaged over the trailing axes), made of tfjs ops on yTrue and yPred, returned synchronously';

/** Every custom loss the spec names, keyed by its config key path; a module that cannot be imported is E_LOSS. */
export async function loadCustomLosses(spec: LossSpec, outputNames: string[]): Promise<Map<string, CustomLossModule>> {
  const out = new Map<string, CustomLossModule>();
  for (const output of outputNames) {
    const l = lossOf(spec, output);
    const keyPath = lossKeyPath(spec, output);
    if (l === undefined || typeof l === 'string' || out.has(keyPath)) continue;
    out.set(keyPath, { keyPath, file: l.module, fn: await importDefaultFunction<LossFn>(l.module, keyPath, 'E_LOSS', HINT) });
  }
  return out;
}

function what(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/**
 * The per-sample loss [n] of a custom module: its result checked (a tensor whose first dimension
 * is the batch), cast to float32, and averaged over any trailing axes (as Keras reduces a loss
 * function's per-element values to one per sample). `when` says where it ran, for messages.
 */
export function customPerSample(tf: TF, m: CustomLossModule, y: Tensor, pred: Tensor, when = ''): Tensor1D {
  const where = `${m.keyPath} (${m.file})`;
  const n = pred.shape[0];
  let r: unknown;
  try {
    r = m.fn(y, pred, tf);
  } catch (err) {
    throw new MgpuError('E_LOSS', `${where} threw${when}: ${messageOf(err)}`, { hint: HINT });
  }
  if (typeof (r as Promise<unknown> | null | undefined)?.then === 'function') {
    throw new MgpuError('E_LOSS', `${where} returned a Promise${when}; a loss must return its tensor synchronously`, {
      hint: 'drop async/await: tfjs ops are synchronous inside the gradient tape',
    });
  }
  if (!isTensor(r)) throw new MgpuError('E_LOSS', `${where} returned ${what(r)}${when}, not a tensor`, { hint: HINT });
  if (r.rank === 0 || r.shape[0] !== n) {
    throw new MgpuError(
      'E_LOSS',
      `${where} returned a tensor of shape [${r.shape.join(', ')}] for a batch of ${n}${when}; the loss of each sample has the batch as its first dimension: [${n}] or [${n}, ...]`,
      {
        hint: r.rank === 0 ? 'do not reduce over the batch (no tf.mean over every axis): mgpu-train weighs each sample and divides by the global batch' : HINT,
      },
    );
  }
  return meanPerSample(tf, r.dtype === 'float32' ? r : tf.cast(r, 'float32'));
}

/**
 * The loss functions of an output with a custom loss: no classes (no accuracy, top-k or counts);
 * its absolute and squared errors compare the labels with the output where they have its shape,
 * and are NaN where they do not (labels the module reads its own way).
 */
export function customLossFns(tf: TF, m: CustomLossModule): LossFns {
  const against = (metric: (y: Tensor, p: Tensor) => Tensor) => (y: Tensor, p: Tensor) =>
    (y.size === p.size ? metric(tf.reshape(tf.cast(y, 'float32'), p.shape), p) : tf.fill([p.shape[0]], NaN)) as Tensor1D;
  return {
    perSample: (y, p) => customPerSample(tf, m, y, p),
    correct: null,
    absError: against((y, p) => meanPerSample(tf, tf.metrics.meanAbsoluteError(y, p))),
    sqError: against((y, p) => meanPerSample(tf, tf.metrics.meanSquaredError(y, p))),
    topK: null,
  };
}

/**
 * Each custom loss once on a one-row batch of zeros (inputs and labels of the run's row format),
 * for each output it is the loss of: one that fails to give a per-sample loss stops the start.
 */
export async function checkCustomLosses(
  tf: TF,
  model: LayersModel,
  rows: RowFormat,
  losses: Array<{ output: string; custom: CustomLossModule | null }>,
): Promise<void> {
  if (!losses.some((l) => l.custom)) return;
  await onZeroRow(tf, model, rows, async (ys, preds) => {
    for (const [k, l] of losses.entries()) {
      if (!l.custom) continue;
      const on = losses.length > 1 ? ` on output '${l.output}'` : '';
      const custom = l.custom;
      // data(): a loss that only fails once computed (a bad broadcast on some backends) fails here too.
      const v = tf.tidy(() => customPerSample(tf, custom, ys[k]!, preds[k]!, `${on} on a one-row batch of zeros (the check at start-up)`));
      await v.data();
      v.dispose();
    }
  });
}
