// A 784-256-256-10 multilayer perceptron for the MNIST digits: big enough for 3,000 training
// digits to overfit within a few epochs, which is what early stopping is for.
import type * as tfjs from '@tensorflow/tfjs';

export default function buildModel(tf: typeof tfjs): tfjs.LayersModel {
  return tf.sequential({
    layers: [
      tf.layers.dense({ inputShape: [784], units: 256, activation: 'relu' }),
      tf.layers.dense({ units: 256, activation: 'relu' }),
      tf.layers.dense({ units: 10, activation: 'softmax' }),
    ],
  });
}
