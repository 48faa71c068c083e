// Per-sample losses and metrics, built from tfjs-layers' own loss functions so that a shard's
// loss is exactly what model.fit or a plain training loop would compute for those samples.
import type { Tensor, Tensor1D } from '@tensorflow/tfjs';
import type { LossName } from '../shared/config/types.ts';
import type { TF } from './backend.ts';

export interface LossFns {
  /** Per-sample loss, shape [n]. */
  perSample(yTrue: Tensor, yPred: Tensor): Tensor1D;
  /** Per-sample 1 (right) or 0 (wrong), shape [n]; null when the loss has no notion of accuracy. */
  correct: ((yTrue: Tensor, yPred: Tensor) => Tensor1D) | null;
  /** Per-sample mean absolute error, shape [n]. */
  absError(yTrue: Tensor, yPred: Tensor): Tensor1D;
  /** Per-sample mean squared error against the same labels as absError, shape [n]. */
  sqError(yTrue: Tensor, yPred: Tensor): Tensor1D;
  /** Per-sample 1 when the true class is among the k most probable; null without classes. */
  topK: ((yTrue: Tensor, yPred: Tensor, k: number) => Tensor1D) | null;
}

export function lossFns(tf: TF, name: LossName): LossFns {
  const flatLabels = (y: Tensor): Tensor1D => tf.cast(y.reshape([-1]), 'int32') as Tensor1D;
  const asOneHot = (y: Tensor, pred: Tensor): Tensor => tf.oneHot(flatLabels(y), pred.shape[pred.shape.length - 1]!);
  const argmaxEq = (a: Tensor, b: Tensor): Tensor1D => tf.cast(tf.equal(a, b), 'float32') as Tensor1D;
  const mae = (yTrue: Tensor, yPred: Tensor): Tensor1D => tf.metrics.meanAbsoluteError(yTrue, yPred) as Tensor1D;
  const mse = (yTrue: Tensor, yPred: Tensor): Tensor1D => tf.metrics.meanSquaredError(yTrue, yPred) as Tensor1D;
  // In the top k: fewer than k classes score strictly higher than the true class (ties count in).
  const inTopK = (cls: Tensor1D, p: Tensor, k: number): Tensor1D => {
    const classes = p.shape[p.shape.length - 1]!;
    const trueScore = tf.sum(tf.mul(p, tf.oneHot(cls, classes)), -1, true);
    const higher = tf.sum(tf.cast(tf.greater(p, trueScore), 'float32'), -1);
    return tf.cast(tf.less(higher, k), 'float32') as Tensor1D;
  };
  switch (name) {
    case 'categoricalCrossentropy':
      return {
        perSample: (y, p) => tf.metrics.categoricalCrossentropy(y, p) as Tensor1D,
        correct: (y, p) => argmaxEq(tf.argMax(y, -1), tf.argMax(p, -1)),
        absError: mae,
        sqError: mse,
        topK: (y, p, k) => inTopK(tf.cast(tf.argMax(y, -1), 'int32') as Tensor1D, p, k),
      };
    case 'sparseCategoricalCrossentropy':
      return {
        perSample: (y, p) => tf.metrics.categoricalCrossentropy(asOneHot(y, p), p) as Tensor1D,
        correct: (y, p) => argmaxEq(flatLabels(y), tf.cast(tf.argMax(p, -1), 'int32')),
        absError: (y, p) => mae(asOneHot(y, p), p),
        sqError: (y, p) => mse(asOneHot(y, p), p),
        topK: (y, p, k) => inTopK(flatLabels(y), p, k),
      };
    case 'binaryCrossentropy':
      return {
        perSample: (y, p) => tf.metrics.binaryCrossentropy(y, p) as Tensor1D,
        correct: (y, p) => tf.mean<Tensor1D>(tf.cast(tf.equal(tf.greater(y, 0.5), tf.greater(p, 0.5)), 'float32'), -1),
        absError: mae,
        sqError: mse,
        topK: null,
      };
    case 'meanSquaredError':
      return {
        perSample: (y, p) => tf.metrics.meanSquaredError(y, p) as Tensor1D,
        correct: null,
        absError: mae,
        sqError: mse,
        topK: null,
      };
  }
}
