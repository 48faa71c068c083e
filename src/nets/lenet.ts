// LeNet-5 in its common modern form, for quick tries: 5x5 convolutions of 6 ('same') and 16
// ('valid') with ReLU, each followed by a 2x2 max-pool, then dense layers of 120 and 84 with
// ReLU and the dense head. 28x28x1 (MNIST) by default: 61,706 parameters at 10 classes.
import { conv, dense, kernelDecay, kernelInit } from './blocks.ts';
import type { NetBuilder, Sym } from './net-options.ts';

export const lenet: NetBuilder = (tf, o) => {
  const wd = o;
  const input = tf.input({ shape: o.inputShape, name: 'input' });
  let x = conv(tf, input, { filters: 6, kernel: 5, bias: true, activation: 'relu', name: 'conv1' }, wd);
  x = tf.layers.maxPooling2d({ poolSize: 2, strides: 2, name: 'pool1' }).apply(x) as Sym;
  x = tf.layers
    .conv2d({ filters: 16, kernelSize: 5, activation: 'relu', name: 'conv2', kernelRegularizer: kernelDecay(tf, wd), kernelInitializer: kernelInit(wd) })
    .apply(x) as Sym;
  x = tf.layers.maxPooling2d({ poolSize: 2, strides: 2, name: 'pool2' }).apply(x) as Sym;
  x = tf.layers.flatten({ name: 'flatten' }).apply(x) as Sym;
  x = dense(tf, x, 120, 'relu', 'fc1', wd);
  x = dense(tf, x, 84, 'relu', 'fc2', wd);
  return tf.model({ inputs: input, outputs: dense(tf, x, o.classes, 'softmax', 'fc', wd), name: 'lenet' });
};
