// A small convolutional net for the MNIST digits: two 3x3 conv + 2x2 max-pool blocks, then a
// 64-unit dense layer and a 10-way softmax (~56k weights). The features are rows of 784 pixels;
// the workers reshape each row to the model's input, [28, 28, 1]. The builder receives `tf` from
// the worker (whichever backend it runs), so the model is built on the worker's own tfjs.
//
// On the wasm backend the convolutions' gradients come from src/worker/wasm-kernels (tfjs's wasm
// backend has no Conv2DBackpropFilter of its own).
import type * as tfjs from '@tensorflow/tfjs';

export default function buildModel(tf: typeof tfjs): tfjs.LayersModel {
  return tf.sequential({
    layers: [
      tf.layers.conv2d({ inputShape: [28, 28, 1], filters: 16, kernelSize: 3, activation: 'relu' }), // -> 26x26x16
      tf.layers.maxPooling2d({ poolSize: 2 }), // -> 13x13x16
      tf.layers.conv2d({ filters: 32, kernelSize: 3, activation: 'relu' }), // -> 11x11x32
      tf.layers.maxPooling2d({ poolSize: 2 }), // -> 5x5x32
      tf.layers.flatten(), // -> 800
      tf.layers.dense({ units: 64, activation: 'relu' }),
      tf.layers.dense({ units: 10, activation: 'softmax' }),
    ],
  });
}
