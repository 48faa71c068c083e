// What the fused-activation tests compare, fused against tfjs's own: an activation layer's values
// and gradient over given points, and a tiny model trained through the layer (its weights and
// saved topology).
import type * as tfjs from '@tensorflow/tfjs';

/** y = layer(xs) and dx = d(Σ layer(x) · dys)/dx at xs, as numbers. */
export async function valueAndGradient(tf: typeof tfjs, layer: tfjs.layers.Layer, xs: number[], dys: number[]): Promise<{ y: number[]; dx: number[] }> {
  const x = tf.tensor1d(xs);
  const y = Array.from(await (layer.apply(x) as tfjs.Tensor).data());
  const dx = Array.from(
    await tf
      .grad((t: tfjs.Tensor) => (layer.apply(t) as tfjs.Tensor).mul(tf.tensor1d(dys)).sum())(x)
      .data(),
  );
  return { y, dx };
}

/**
 * One activation layer between two Dense layers, trained three SGD epochs on fixed rows (the
 * first Dense's initial weights in [-span, span], so that the activation sees its whole range).
 */
export async function trainThrough(tf: typeof tfjs, activation: tfjs.layers.Layer, span: number): Promise<{ weights: Float32Array[]; json: string }> {
  const model = tf.sequential({
    layers: [
      tf.layers.dense({ units: 6, inputShape: [4], kernelInitializer: tf.initializers.randomUniform({ minval: -span, maxval: span, seed: 3 }) }),
      activation,
      tf.layers.dense({ units: 1, kernelInitializer: 'ones' }),
    ],
  });
  model.compile({ optimizer: tf.train.sgd(0.05), loss: 'meanSquaredError' });
  const xs = tf.tensor2d(
    Array.from({ length: 32 }, (_, i) => Math.sin(i) * 4),
    [8, 4],
  );
  await model.fit(xs, tf.ones([8, 1]), { epochs: 3, batchSize: 8, shuffle: false });
  const json = JSON.stringify(model.toJSON(null, false));
  return { weights: (await Promise.all(model.getWeights().map((w) => w.data()))) as Float32Array[], json };
}
