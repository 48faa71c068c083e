// The 20M-parameter MLP of the GPU step breakdown: 784-4096-4096-10 (20.0M weights).
import type * as tfjs from '@tensorflow/tfjs';

export default function buildModel(tf: typeof tfjs): tfjs.LayersModel {
  return tf.sequential({
    layers: [
      tf.layers.dense({ inputShape: [784], units: 4096, activation: 'relu' }),
      tf.layers.dense({ units: 4096, activation: 'relu' }),
      tf.layers.dense({ units: 10, activation: 'softmax' }),
    ],
  });
}
