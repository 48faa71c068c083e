// One network, two answers: which digit it is ('digit', a softmax over 10 classes) and whether
// it is 5 or more ('big', one sigmoid). A shared hidden layer feeds both heads; the layers'
// names are the model's output names, which the config's loss, lossWeights and the data module
// key their values by.
import type * as tfjs from '@tensorflow/tfjs';

export default function buildModel(tf: typeof tfjs): tfjs.LayersModel {
  const image = tf.input({ shape: [784], name: 'image' });
  const hidden = tf.layers.dense({ units: 128, activation: 'relu', name: 'hidden' }).apply(image) as tfjs.SymbolicTensor;
  const digit = tf.layers.dense({ units: 10, activation: 'softmax', name: 'digit' }).apply(hidden) as tfjs.SymbolicTensor;
  const big = tf.layers.dense({ units: 1, activation: 'sigmoid', name: 'big' }).apply(hidden) as tfjs.SymbolicTensor;
  return tf.model({ inputs: image, outputs: [digit, big] });
}
