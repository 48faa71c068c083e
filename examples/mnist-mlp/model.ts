// A 784-128-10 multilayer perceptron for the MNIST digits. The builder receives `tf` from the
// worker (whichever backend it runs), so the model is built on the worker's own tfjs.
import type * as tfjs from '@tensorflow/tfjs';

export default function buildModel(tf: typeof tfjs): tfjs.LayersModel {
  return tf.sequential({
    layers: [tf.layers.dense({ inputShape: [784], units: 128, activation: 'relu' }), tf.layers.dense({ units: 10, activation: 'softmax' })],
  });
}
