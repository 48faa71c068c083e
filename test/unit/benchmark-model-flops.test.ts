// The FLOPs of a training sample (src/benchmark/model-flops.ts) against multiply-adds counted by
// hand here, layer by layer: ResNet-18 in its CIFAR form (the network by name) at 32x32 is
// 555,422,720 multiply-adds forward (3x3 stem, four stages of basic blocks, three 1x1
// projections, the dense head), so 3.33 GFLOP a training sample; a model of each other counted
// kind (depthwise with a multiplier, separable, a Dense over a sequence, a nested model); and a
// custom layer with weights named as not counted, with BatchNormalization not named.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { modelFlops } from '../../src/benchmark/model-flops.ts';
import { buildNet } from '../../src/nets/nets-table.ts';

before(async () => {
  await tf.setBackend('cpu');
});

test('resnet18-cifar at 32x32: 555,422,720 multiply-adds forward, x 2 x 3 a training sample', () => {
  const conv = (side: number, out: number, k: number, inC: number) => side * side * out * k * k * inC;
  const stage = (side: number, c: number) => conv(side, c, 3, c / 2) + 3 * conv(side, c, 3, c) + conv(side, c, 1, c / 2);
  const macs = conv(32, 64, 3, 3) + 4 * conv(32, 64, 3, 64) + stage(16, 128) + stage(8, 256) + stage(4, 512) + 512 * 10;
  assert.equal(macs, 555_422_720);
  const model = buildNet(tf, 'resnet18-cifar', { classes: 10, inputShape: [32, 32, 3], zeroInit: true });
  const f = modelFlops(model);
  model.dispose();
  assert.deepEqual(f, { forward: 2 * macs, training: 6 * macs, uncounted: [] });
});

test('depthwise (multiplier 2), separable, a Dense over a sequence and a nested model: each counted', () => {
  const inner = tf.sequential({ layers: [tf.layers.dense({ units: 3, inputShape: [7] })] });
  const input = tf.input({ shape: [9, 9, 4] });
  let x = tf.layers.conv2d({ filters: 6, kernelSize: [3, 1], strides: 2, padding: 'valid' }).apply(input) as tf.SymbolicTensor; // 4x5x6
  x = tf.layers.depthwiseConv2d({ kernelSize: 3, depthMultiplier: 2, padding: 'same' }).apply(x) as tf.SymbolicTensor; // 4x5x12
  x = tf.layers.separableConv2d({ filters: 5, kernelSize: 2, depthMultiplier: 2, padding: 'valid' }).apply(x) as tf.SymbolicTensor; // 3x4x5 (24 in between)
  x = tf.layers.reshape({ targetShape: [12, 5] }).apply(x) as tf.SymbolicTensor;
  x = tf.layers.dense({ units: 7 }).apply(x) as tf.SymbolicTensor; // 12 rows x 5 -> 7
  x = tf.layers.batchNormalization().apply(x) as tf.SymbolicTensor;
  const out = inner.apply(tf.layers.globalAveragePooling1d().apply(x)) as tf.SymbolicTensor;
  const model = tf.model({ inputs: input, outputs: out });
  const macs = 4 * 5 * 6 * 3 * 4 + 4 * 5 * 12 * 9 + (3 * 4 * 24 * 4 + 3 * 4 * 24 * 5) + 12 * 5 * 7 + 7 * 3;
  assert.deepEqual(modelFlops(model), { forward: 2 * macs, training: 6 * macs, uncounted: [] });
  model.dispose();
});

test('a custom layer with weights is named as not counted; one without weights and BatchNormalization are not', () => {
  class Scale extends tf.layers.Layer {
    static className = 'TestScale';
    w!: tf.LayerVariable;
    build(): void {
      this.w = this.addWeight('w', [1], 'float32', tf.initializers.ones());
      this.built = true;
    }
    call(x: tf.Tensor | tf.Tensor[]): tf.Tensor {
      return tf.mul(Array.isArray(x) ? x[0]! : x, this.w.read());
    }
  }
  const input = tf.input({ shape: [4] });
  const y = tf.layers.dense({ units: 2 }).apply(tf.layers.batchNormalization().apply(new Scale({}).apply(tf.layers.reLU().apply(input))));
  const model = tf.model({ inputs: input, outputs: y as tf.SymbolicTensor });
  assert.deepEqual(modelFlops(model), { forward: 2 * 8, training: 6 * 8, uncounted: ['TestScale'] });
  model.dispose();
});

test('a model built for a fixed batch (batchSize 4) counts one sample; uncounted classes are sorted, each once', () => {
  const make = (name: string) =>
    class extends tf.layers.Layer {
      static className = name;
      build(): void {
        this.addWeight('w', [1], 'float32', tf.initializers.ones());
        this.built = true;
      }
      call(x: tf.Tensor | tf.Tensor[]): tf.Tensor {
        return Array.isArray(x) ? x[0]! : x;
      }
    };
  const [Zeta, Alpha] = [make('TestZeta'), make('TestAlpha')];
  const input = tf.input({ batchShape: [4, 6, 6, 2] });
  let x = tf.layers.conv2d({ filters: 3, kernelSize: 3, padding: 'same' }).apply(input) as tf.SymbolicTensor;
  x = new Zeta({}).apply(new Alpha({}).apply(new Zeta({}).apply(x))) as tf.SymbolicTensor;
  const model = tf.model({ inputs: input, outputs: x });
  const macs = 6 * 6 * 3 * 9 * 2;
  assert.deepEqual(modelFlops(model), { forward: 2 * macs, training: 6 * macs, uncounted: ['TestAlpha', 'TestZeta'] });
  model.dispose();
});
