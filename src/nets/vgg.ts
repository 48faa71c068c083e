// VGG-16 as torchvision builds it (torchvision.models.vgg16, configuration D, no BatchNorm):
// thirteen 3x3 convolutions with bias and ReLU in five blocks, each ending in a 2x2/2 max-pool,
// then two dense layers of 4096 with ReLU and dropout 0.5 and the dense head. torchvision pools
// adaptively to 7x7 before the dense layers; tfjs has no adaptive pool, so the feature map is
// flattened as it is: 7x7 at the standard 224x224 (the same network), (h/32)x(w/32) at others,
// which changes the first dense layer's size (Keras's VGG16 keeps 224x224 for its head).
import { conv, dense } from './blocks.ts';
import type { NetBuilder, Sym } from './net-options.ts';

const BLOCKS: readonly [number, number][] = [
  [64, 2],
  [128, 2],
  [256, 3],
  [512, 3],
  [512, 3],
];

export const vgg16: NetBuilder = (tf, o) => {
  const wd = o;
  const rate = o.dropout ?? 0.5;
  const input = tf.input({ shape: o.inputShape, name: 'input' });
  let x: Sym = input;
  BLOCKS.forEach(([filters, n], b) => {
    for (let i = 0; i < n; i++) x = conv(tf, x, { filters, kernel: 3, bias: true, activation: 'relu', name: `block${b + 1}_conv${i + 1}` }, wd);
    x = tf.layers.maxPooling2d({ poolSize: 2, strides: 2, name: `block${b + 1}_pool` }).apply(x) as Sym;
  });
  x = tf.layers.flatten({ name: 'flatten' }).apply(x) as Sym;
  for (const i of [1, 2]) {
    x = dense(tf, x, 4096, 'relu', `fc${i}`, wd);
    if (rate > 0) x = tf.layers.dropout({ rate, name: `dropout${i}` }).apply(x) as Sym;
  }
  return tf.model({ inputs: input, outputs: dense(tf, x, o.classes, 'softmax', 'fc', wd), name: 'vgg16' });
};
