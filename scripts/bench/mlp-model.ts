// The benchmark model: an MLP 784-512-10 (the one issue #5 sets its target on).
import type * as tfjs from '@tensorflow/tfjs';

export default function buildModel(tf: typeof tfjs): tfjs.LayersModel {
  return tf.sequential({
    layers: [tf.layers.dense({ inputShape: [784], units: 512, activation: 'relu' }), tf.layers.dense({ units: 10, activation: 'softmax' })],
  });
}
