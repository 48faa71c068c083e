// Per-sample losses and metrics, built from tfjs-layers' own loss functions so that a shard's
// loss is exactly what model.fit or a plain training loop would compute for those samples.
import type { Tensor, Tensor1D } from '@tensorflow/tfjs';
import type { LossName } from '../config/types.ts';
import type { TF } from './backend.ts';

export interface LossFns {
  // Every function gives one value per sample, shape [n]: on an output of more than two
  // dimensions, the mean over its positions (meanPerSample).
  /** Per-sample loss, shape [n]. */
  perSample(yTrue: Tensor, yPred: Tensor): Tensor1D;
  /** Per-sample 1 (right) or 0 (wrong), the fraction of positions right on a >2-D output; null without accuracy. */
  correct: ((yTrue: Tensor, yPred: Tensor) => Tensor1D) | null;
  /** Per-sample mean absolute error, shape [n]. */
  absError(yTrue: Tensor, yPred: Tensor): Tensor1D;
  /** Per-sample mean squared error against the same labels as absError, shape [n]. */
  sqError(yTrue: Tensor, yPred: Tensor): Tensor1D;
  /** Per-sample 1 when the true class is among the k most probable (fraction of positions); null without classes. */
  topK: ((yTrue: Tensor, yPred: Tensor, k: number) => Tensor1D) | null;
}

/**
 * One value per sample [n] from per-element values [n, ...]: their mean over every axis but the
 * batch, as Keras and tfjs reduce a loss or metric on an output of more than two dimensions (an
 * 8x8x1 image, 5 time steps): tfjs's own functions reduce the last axis only, and fit and
 * evaluate then average what is left, so a position counts as a 1/positions share of its sample.
 */
export function meanPerSample(tf: TF, v: Tensor): Tensor1D {
  if (v.rank <= 1) return v as Tensor1D;
  return tf.mean<Tensor1D>(
    v,
    Array.from({ length: v.rank - 1 }, (_, i) => i + 1),
  );
}

/** The shared pieces the kernels are built of, for one tf. */
interface Kit {
  tf: TF;
  per: (v: Tensor) => Tensor1D;
  indices: (y: Tensor, pred: Tensor) => Tensor;
  asOneHot: (y: Tensor, pred: Tensor) => Tensor;
  argmaxEq: (a: Tensor, b: Tensor) => Tensor1D;
  mae: (yTrue: Tensor, yPred: Tensor) => Tensor1D;
  mse: (yTrue: Tensor, yPred: Tensor) => Tensor1D;
  inTopK: (cls: Tensor, p: Tensor, k: number) => Tensor1D;
}

function kit(tf: TF): Kit {
  const per = (v: Tensor): Tensor1D => meanPerSample(tf, v);
  // Class indices (sparse labels [n] or [n, ...positions], possibly with a trailing 1) in the
  // shape of the output without its class axis.
  const indices = (y: Tensor, pred: Tensor): Tensor => tf.reshape(tf.cast(y, 'int32'), pred.shape.slice(0, -1));
  const asOneHot = (y: Tensor, pred: Tensor): Tensor => tf.oneHot(indices(y, pred), pred.shape[pred.shape.length - 1]!);
  const argmaxEq = (a: Tensor, b: Tensor): Tensor1D => per(tf.cast(tf.equal(a, b), 'float32'));
  const mae = (yTrue: Tensor, yPred: Tensor): Tensor1D => per(tf.metrics.meanAbsoluteError(yTrue, yPred));
  const mse = (yTrue: Tensor, yPred: Tensor): Tensor1D => per(tf.metrics.meanSquaredError(yTrue, yPred));
  // In the top k: fewer than k classes score strictly higher than the true class (ties count in).
  const inTopK = (cls: Tensor, p: Tensor, k: number): Tensor1D => {
    const classes = p.shape[p.shape.length - 1]!;
    const trueScore = tf.sum(tf.mul(p, tf.oneHot(cls as never, classes)), -1, true);
    const higher = tf.sum(tf.cast(tf.greater(p, trueScore), 'float32'), -1);
    return per(tf.cast(tf.less(higher, k), 'float32'));
  };
  return { tf, per, indices, asOneHot, argmaxEq, mae, mse, inTopK };
}

/**
 * Each built-in loss's kernel, keyed by the names of its table (src/shared/losses-table.ts): a
 * name without a kernel does not compile. `correct` and `topK` are null where the table says the
 * loss has no classes or no score per class.
 */
const KERNELS: Record<LossName, (k: Kit) => LossFns> = {
  categoricalCrossentropy: ({ tf, per, argmaxEq, mae, mse, inTopK }) => ({
    perSample: (y, p) => per(tf.metrics.categoricalCrossentropy(y, p)),
    correct: (y, p) => argmaxEq(tf.argMax(y, -1), tf.argMax(p, -1)),
    absError: mae,
    sqError: mse,
    topK: (y, p, k) => inTopK(tf.cast(tf.argMax(y, -1), 'int32'), p, k),
  }),
  sparseCategoricalCrossentropy: ({ tf, per, indices, asOneHot, argmaxEq, mae, mse, inTopK }) => ({
    perSample: (y, p) => per(tf.metrics.categoricalCrossentropy(asOneHot(y, p), p)),
    correct: (y, p) => argmaxEq(indices(y, p), tf.cast(tf.argMax(p, -1), 'int32')),
    absError: (y, p) => mae(asOneHot(y, p), p),
    sqError: (y, p) => mse(asOneHot(y, p), p),
    topK: (y, p, k) => inTopK(indices(y, p), p, k),
  }),
  binaryCrossentropy: ({ tf, per, mae, mse }) => ({
    perSample: (y, p) => per(tf.metrics.binaryCrossentropy(y, p)),
    correct: (y, p) => per(tf.cast(tf.equal(tf.greater(y, 0.5), tf.greater(p, 0.5)), 'float32')),
    absError: mae,
    sqError: mse,
    topK: null,
  }),
  meanSquaredError: ({ mae, mse }) => ({
    perSample: (y, p) => mse(y, p),
    correct: null,
    absError: mae,
    sqError: mse,
    topK: null,
  }),
};

export function lossFns(tf: TF, name: LossName): LossFns {
  return KERNELS[name](kit(tf));
}
