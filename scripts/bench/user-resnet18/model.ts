// ResNet-18 for 32x32 images as a tfjs user writes it in a model module, the way Keras's own
// ResNet code is written: tfjs's layers with their defaults (convolutions with a bias, 'same'
// padding also at stride 2, BatchNormalization with Keras's momentum 0.99 and epsilon 1e-3,
// a ReLU layer), a 3x3 stride-1 stem, four stages of two basic blocks (64, 128, 256, 512), a 1x1
// projection where the shape changes, global average pooling and a softmax. The same
// architecture as `model: { net: resnet18-cifar }` and torchvision's resnet18 in its CIFAR
// form; what differs is only how it is written. scripts/bench/cnn-vs-pytorch.ts times it beside
// the network by name and PyTorch.
import type * as tfjs from '@tensorflow/tfjs';

type Sym = tfjs.SymbolicTensor;

export default function buildModel(tf: typeof tfjs): tfjs.LayersModel {
  const conv = (x: Sym, filters: number, kernelSize: number, strides = 1) =>
    tf.layers.conv2d({ filters, kernelSize, strides, padding: 'same', kernelInitializer: 'heNormal' }).apply(x) as Sym;
  const bn = (x: Sym) => tf.layers.batchNormalization().apply(x) as Sym;
  const relu = (x: Sym) => tf.layers.reLU().apply(x) as Sym;

  const block = (x: Sym, filters: number, strides: number): Sym => {
    let y = relu(bn(conv(x, filters, 3, strides)));
    y = bn(conv(y, filters, 3));
    const shortcut = strides !== 1 || x.shape[3] !== filters ? bn(conv(x, filters, 1, strides)) : x;
    return relu(tf.layers.add().apply([y, shortcut]) as Sym);
  };

  const input = tf.input({ shape: [32, 32, 3] });
  let x = relu(bn(conv(input, 64, 3)));
  [64, 128, 256, 512].forEach((filters, stage) => {
    x = block(x, filters, stage === 0 ? 1 : 2);
    x = block(x, filters, 1);
  });
  x = tf.layers.globalAveragePooling2d({}).apply(x) as Sym;
  const output = tf.layers.dense({ units: 10, activation: 'softmax' }).apply(x) as Sym;
  return tf.model({ inputs: input, outputs: output });
}
