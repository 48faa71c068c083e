// The eval figures a config's `metrics` asks of a worker beyond the shipped ones. Only sums
// leave the worker (Σ squared error, per-class counts, a custom module's named sums), plus each
// row's scores and label for AUC, written to the rank's output region: the coordinator adds them
// over ranks and chunks, so its figures are those of the whole eval set at once.
import type { LayersModel, Tensor, TensorContainer } from '@tensorflow/tfjs';
import { hasClasses, labelsOf } from '../config/loss.ts';
import type { LossEntry } from '../config/types.ts';
import { MgpuError, messageOf } from '../shared/errors.ts';
import type { RowFormat, WorkerMetrics } from '../shared/protocol.ts';
import type { TF } from './backend.ts';
import type { LossFns } from './losses.ts';
import { importDefaultFunction, isTensor, onZeroRow } from './user-modules.ts';

/** A custom metric module's default export: named sums over the rows of one batch. */
export type MetricFn = (yTrue: Tensor, yPred: Tensor, tf: TF) => Record<string, Tensor | number>;

export interface CustomMetric {
  keyPath: string; // metrics[i], for messages
  file: string;
  fn: MetricFn;
}

const HINT = 'export default function (yTrue, yPred, tf) { return { name: tf.sum(...), ... } }: scalar tensors or numbers, summed over batches and workers';

export async function loadCustomMetrics(specs: WorkerMetrics['custom']): Promise<CustomMetric[]> {
  const out: CustomMetric[] = [];
  for (const { module: file, keyPath } of specs) out.push({ keyPath, file, fn: await importDefaultFunction<MetricFn>(file, keyPath, 'E_METRIC', HINT) });
  return out;
}

/** What a config's metrics ask of one eval shard, before the readback. */
export interface MetricTensors {
  flat: Tensor; // [Σ sq error, tp[K], fp[K], fn[K] (counts), scores m·K, labels m or m·K (scores)]: one readback
  classes: number; // K: softmax classes, or outputs of a binary loss
  rows: number; // m: rows scored
}

export function metricTensors(tf: TF, lossName: LossEntry, loss: LossFns, spec: WorkerMetrics, y: Tensor, pred: Tensor): MetricTensors {
  return tf.tidy(() => {
    const parts: Tensor[] = [tf.reshape(tf.sum(loss.sqError(y, pred)), [1])];
    let classes = 0;
    let rows = 0;
    if ((spec.counts || spec.scores) && hasClasses(lossName)) {
      let truth: Tensor; // 0/1 per (row, class)
      let guess: Tensor;
      let scores: Tensor; // [m, K]: m rows (n, or n times the positions of a >2-D output)
      let labels: Tensor; // class indices [m], or 0/1 [m, K]
      if (labelsOf(lossName) === 'binary') {
        // Each unit of the last axis is a yes/no problem, thresholded at 0.5 as the shipped
        // accuracy is; on a >2-D output (a mask) each position is a row, as Keras counts them.
        classes = pred.shape[pred.shape.length - 1]!;
        scores = tf.reshape(pred, [-1, classes]);
        truth = tf.cast(tf.greater(tf.reshape(y, [-1, classes]), 0.5), 'float32');
        guess = tf.cast(tf.greater(scores, 0.5), 'float32');
        labels = truth;
      } else {
        // A softmax over the last axis: the predicted class is the argmax.
        classes = pred.shape[pred.shape.length - 1]!;
        scores = tf.reshape(pred, [-1, classes]);
        const index = labelsOf(lossName) === 'index' ? tf.cast(tf.reshape(y, [-1]), 'int32') : tf.cast(tf.argMax(tf.reshape(y, [-1, classes]), -1), 'int32');
        truth = tf.cast(tf.oneHot(index as never, classes), 'float32');
        guess = tf.cast(tf.oneHot(tf.cast(tf.argMax(scores, -1), 'int32') as never, classes), 'float32');
        labels = tf.cast(index, 'float32');
      }
      rows = scores.shape[0]!;
      if (spec.counts) {
        const tp = tf.sum(tf.mul(truth, guess), 0);
        parts.push(tp, tf.sub(tf.sum(guess, 0), tp), tf.sub(tf.sum(truth, 0), tp));
      }
      if (spec.scores) parts.push(tf.reshape(tf.cast(scores, 'float32'), [-1]), tf.reshape(labels, [-1]));
    }
    return { flat: tf.concat(parts.map((p) => tf.cast(p, 'float32'))), classes, rows };
  });
}

export interface MetricSums {
  sqErrorSum: number;
  counts: { tp: number[]; fp: number[]; fn: number[] } | null;
  scores: Float32Array | null; // m·K scores then the labels, as output[rank] receives them
}

export function unpack(values: Float32Array, spec: WorkerMetrics, t: MetricTensors): MetricSums {
  const K = t.classes;
  let at = 1;
  const take = (k: number) => Array.from(values.subarray(at, (at += k)));
  const counts = spec.counts && K > 0 ? { tp: take(K), fp: take(K), fn: take(K) } : null;
  return { sqErrorSum: values[0]!, counts, scores: spec.scores && K > 0 ? values.subarray(at) : null };
}

/** A custom metric's named sums over one batch, read back as numbers. */
export async function customSums(tf: TF, m: CustomMetric, y: Tensor, pred: Tensor, when = ''): Promise<Record<string, number>> {
  const where = `${m.keyPath} (${m.file})`;
  let result: unknown;
  try {
    result = tf.tidy(() => {
      const r = m.fn(y, pred, tf) as unknown;
      if (typeof (r as Promise<unknown> | null | undefined)?.then === 'function')
        throw new Error('returned a Promise; the metric must return its sums synchronously');
      return r as TensorContainer;
    });
  } catch (err) {
    throw new MgpuError('E_METRIC', `${where} threw${when}: ${messageOf(err)}`, { hint: HINT });
  }
  const proto: unknown = typeof result === 'object' && result !== null ? Object.getPrototypeOf(result) : undefined;
  if (!(proto === Object.prototype || proto === null) || Object.keys(result as object).length === 0) {
    if (isTensor(result)) tf.dispose(result);
    throw new MgpuError(
      'E_METRIC',
      `${where} returned ${Array.isArray(result) ? 'a list' : isTensor(result) ? 'a tensor' : result === null ? 'null' : typeof result === 'object' ? 'an empty object' : typeof result}${when}, not an object of named sums`,
      { hint: HINT },
    );
  }
  const entries = Object.entries(result as Record<string, unknown>);
  try {
    for (const [k, v] of entries) {
      if (typeof v === 'number') continue;
      if (!isTensor(v))
        throw new MgpuError('E_METRIC', `${where}: the sum ${JSON.stringify(k)} is ${v === null ? 'null' : typeof v}${when}, not a number or a scalar tensor`, {
          hint: HINT,
        });
      if (v.size !== 1)
        throw new MgpuError('E_METRIC', `${where}: the sum ${JSON.stringify(k)} is a tensor of shape [${v.shape}]${when}, not a scalar`, {
          hint: 'sum it: tf.sum(...)',
        });
    }
    const out: Record<string, number> = {};
    for (const [k, v] of entries) out[k] = typeof v === 'number' ? v : (await (v as Tensor).data())[0]!;
    return out;
  } finally {
    tf.dispose(entries.map(([, v]) => v).filter(isTensor));
  }
}

/**
 * Each custom metric once on a one-row batch of zeros, when the worker attaches: a module that
 * throws or returns no sums fails the start of the run, not its first evaluation. A model with
 * several outputs calls it on each output, as an evaluation does.
 */
export async function checkCustomMetrics(tf: TF, model: LayersModel, rows: RowFormat, metrics: CustomMetric[]): Promise<void> {
  if (metrics.length === 0) return;
  await onZeroRow(tf, model, rows, async (ys, preds, outputs) => {
    for (const m of metrics) {
      for (const [k, output] of outputs.entries()) {
        const on = outputs.length > 1 ? ` on output '${output}'` : '';
        await customSums(tf, m, ys[k]!, preds[k]!, `${on} on a one-row batch of zeros (the check at start-up)`);
      }
    }
  });
}
