// What a worker does alike with the modules a config names for it to run (a custom loss, a
// custom metric): import one and take its default export function, tell a tensor from other
// results, and run them once on a one-row batch of zeros at start-up.
import type { LayersModel, Tensor } from '@tensorflow/tfjs';
import { importUserModule } from '../shared/import-user-module.ts';
import { MgpuError, messageOf } from '../shared/errors.ts';
import type { RowFormat } from '../shared/protocol.ts';
import type { TF } from './backend.ts';

/**
 * The default export function of `file`, named by `keyPath` (e.g. `loss`, `metrics[1]`) in the
 * error `code` it raises when the module does not load or exports no function (`hint` then).
 */
export async function importDefaultFunction<F>(file: string, keyPath: string, code: 'E_LOSS' | 'E_METRIC', hint: string): Promise<F> {
  let mod: Record<string, unknown>;
  try {
    mod = await importUserModule(file);
  } catch (err) {
    throw new MgpuError(code, `${keyPath}.module ${file} failed to load: ${messageOf(err)}`, { hint: 'run it with node to see the full error' });
  }
  if (typeof mod.default !== 'function') throw new MgpuError(code, `${keyPath}.module ${file} has no default export function`, { hint });
  return mod.default as F;
}

/** A tfjs tensor, recognised by shape (whichever tfjs instance made it). */
export const isTensor = (v: unknown): v is Tensor =>
  typeof v === 'object' && v !== null && typeof (v as Tensor).dataSync === 'function' && Array.isArray((v as Tensor).shape);

/**
 * The model on a one-row batch of zeros of the run's row format (float32, as the shard reader
 * gives inputs and labels): `visit` gets each output's zero labels and prediction, in the model's
 * order, and they are disposed after. Nothing is visited without labels (a predict run).
 */
export async function onZeroRow(
  tf: TF,
  model: LayersModel,
  rows: RowFormat,
  visit: (ys: Tensor[], preds: Tensor[], outputs: string[]) => Promise<void>,
): Promise<void> {
  const targets = rows.parts.filter((p) => p.role === 'target');
  if (targets.length === 0) return;
  const xs = rows.parts.filter((p) => p.role === 'input').map((p) => tf.zeros([1, ...p.shape]));
  const ys = targets.map((p) => tf.zeros([1, ...p.shape]));
  const out = tf.tidy(() => model.apply(xs.length === 1 ? xs[0]! : xs, { training: false }) as Tensor | Tensor[]);
  const preds = Array.isArray(out) ? out : [out];
  try {
    await visit(
      ys,
      preds,
      targets.map((p) => p.name),
    );
  } finally {
    tf.dispose([...xs, ...ys, ...preds]);
  }
}
