// Every BatchNormalization a worker trains runs on the fused kernels, however the model was made:
// a model module's tf.layers.batchNormalization (after a convolution and after a Dense), a
// converted Keras model.json (its BatchNormalization says axis [3], momentum 0.99, epsilon 1e-3,
// as tf.keras writes them), and a BatchNormalization held inside a custom layer (not in
// model.layers). The tf is the worker's, from loadBackend('wasm'): the wiring is the worker's own.
// For each, one training step runs one MgpuBatchNormTrain and one MgpuBatchNormTrainGrad per
// BatchNormalization and no FusedBatchNorm, and the weights and moving statistics after two SGD
// steps are those of tfjs's own op-by-op call within float error.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type * as TFNS from '@tensorflow/tfjs';
import { loadBackend, type TF } from '../../src/worker/backend.ts';
import { fuseBatchNormalization, isBatchNormFused, unfuseBatchNormalization } from '../../src/worker/fused-batch-norm.ts';
import { unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { assertClose, randomUniform, seededRandom } from '../helpers/close.ts';

let tf: TF;
before(async () => {
  tf = (await loadBackend('wasm')).tf;
});
after(() => {
  unfuseBatchNormalization(tf);
  unregisterWasmGradKernels(tf);
});

type Sym = TFNS.SymbolicTensor;
const SHAPE = [6, 6, 3];

/** A module's model: conv → BN → relu → pool → dense → BN → softmax. */
function moduleModel(): TFNS.LayersModel {
  const input = tf.input({ shape: SHAPE });
  let y = tf.layers.conv2d({ filters: 5, kernelSize: 3, padding: 'same', useBias: false }).apply(input) as Sym;
  y = tf.layers.activation({ activation: 'relu' }).apply(tf.layers.batchNormalization({}).apply(y)) as Sym;
  y = tf.layers.globalAveragePooling2d({}).apply(y) as Sym;
  y = tf.layers.batchNormalization({}).apply(tf.layers.dense({ units: 7 }).apply(y)) as Sym;
  return tf.model({ inputs: input, outputs: tf.layers.dense({ units: 4, activation: 'softmax' }).apply(y) as Sym });
}

/** The topology tf.keras 2 writes for Conv2D → BatchNormalization → Flatten → Dense, as the tfjs converter keeps it. */
function kerasTopology(): object {
  const init = (name: string) => ({ class_name: name, config: {} });
  return {
    class_name: 'Sequential',
    config: {
      name: 'converted',
      layers: [
        {
          class_name: 'Conv2D',
          config: {
            name: 'conv',
            trainable: true,
            batch_input_shape: [null, ...SHAPE],
            dtype: 'float32',
            filters: 4,
            kernel_size: [3, 3],
            strides: [1, 1],
            padding: 'same',
            data_format: 'channels_last',
            dilation_rate: [1, 1],
            activation: 'linear',
            use_bias: false,
            kernel_initializer: { class_name: 'GlorotUniform', config: { seed: 7 } },
          },
        },
        {
          class_name: 'BatchNormalization',
          config: {
            name: 'bn',
            trainable: true,
            dtype: 'float32',
            axis: [3],
            momentum: 0.99,
            epsilon: 0.001,
            center: true,
            scale: true,
            beta_initializer: init('Zeros'),
            gamma_initializer: init('Ones'),
            moving_mean_initializer: init('Zeros'),
            moving_variance_initializer: init('Ones'),
          },
        },
        { class_name: 'Flatten', config: { name: 'flatten', trainable: true, dtype: 'float32', data_format: 'channels_last' } },
        { class_name: 'Dense', config: { name: 'fc', trainable: true, dtype: 'float32', units: 4, activation: 'softmax', use_bias: true } },
      ],
    },
    keras_version: '2.15.0',
    backend: 'tensorflow',
  };
}

async function kerasModel(): Promise<TFNS.LayersModel> {
  return await tf.loadLayersModel(tf.io.fromMemory({ modelTopology: kerasTopology() }));
}

/** A model whose custom layer holds a Conv2D and a BatchNormalization of its own and calls them in its call. */
function customLayerModel(): TFNS.LayersModel {
  class ConvBn extends tf.layers.Layer {
    static className = 'TestConvBn';
    readonly conv = tf.layers.conv2d({ filters: 4, kernelSize: 3, padding: 'same', useBias: false });
    readonly bn = tf.layers.batchNormalization({});
    build(shape: TFNS.Shape | TFNS.Shape[]): void {
      this.conv.build(shape);
      this.bn.build([...(shape as TFNS.Shape).slice(0, -1), 4]);
      this.built = true;
    }
    get trainableWeights(): TFNS.LayerVariable[] {
      return [...this.conv.trainableWeights, ...this.bn.trainableWeights];
    }
    get nonTrainableWeights(): TFNS.LayerVariable[] {
      return this.bn.nonTrainableWeights;
    }
    computeOutputShape(shape: TFNS.Shape | TFNS.Shape[]): TFNS.Shape {
      return [...(shape as TFNS.Shape).slice(0, -1), 4];
    }
    call(inputs: TFNS.Tensor | TFNS.Tensor[], kwargs: Record<string, unknown>): TFNS.Tensor {
      return this.bn.apply(this.conv.apply(inputs, kwargs), kwargs) as TFNS.Tensor;
    }
  }
  const input = tf.input({ shape: SHAPE });
  const y = tf.layers.flatten().apply(new ConvBn({}).apply(input)) as Sym;
  return tf.model({ inputs: input, outputs: tf.layers.dense({ units: 4, activation: 'softmax' }).apply(y) as Sym });
}

const MODELS: [string, () => TFNS.LayersModel | Promise<TFNS.LayersModel>, number][] = [
  ["a module's tf.layers.batchNormalization, after a convolution and after a Dense", moduleModel, 2],
  ['a converted Keras model.json (axis [3], momentum 0.99, epsilon 1e-3)', kerasModel, 1],
  ['a BatchNormalization inside a custom layer', customLayerModel, 1],
];

const rows = (seed: number) => {
  const rand = seededRandom(seed);
  return {
    x: tf.tensor4d(randomUniform(rand, 8 * 6 * 6 * 3, -1, 2), [8, ...SHAPE] as [number, number, number, number]),
    y: tf.oneHot(
      Int32Array.from({ length: 8 }, () => Math.floor(rand() * 4)),
      4,
    ),
  };
};

/** Two SGD steps; the weights after them (trainable and moving statistics) and the kernels of the first step. */
async function train(model: TFNS.LayersModel): Promise<{ weights: Float32Array; kernels: string[] }> {
  const opt = tf.train.sgd(0.1);
  const step = (seed: number) => {
    const { x, y } = rows(seed);
    opt.minimize(() => tf.mean<TFNS.Scalar>(tf.metrics.categoricalCrossentropy(y, model.apply(x, { training: true }) as TFNS.Tensor)));
    tf.dispose([x, y]);
  };
  const profile = await tf.profile(() => step(1));
  step(2);
  opt.dispose();
  const weights = Float32Array.from(model.getWeights().flatMap((w) => Array.from(w.dataSync())));
  return { weights, kernels: profile.kernels.map((k) => k.name) };
}

for (const [what, make, bns] of MODELS) {
  test(`${what}: trained on the fused kernels, to tfjs's own weights within float error`, async () => {
    const fused = await make();
    const plain = await make();
    plain.setWeights(fused.getWeights());
    const initial = Float32Array.from(fused.getWeights().flatMap((w) => Array.from(w.dataSync())));
    assert.ok(isBatchNormFused(tf), "the worker's backend fused BatchNormalization");
    const got = await train(fused);
    unfuseBatchNormalization(tf);
    let want: Awaited<ReturnType<typeof train>>;
    try {
      want = await train(plain);
    } finally {
      fuseBatchNormalization(tf);
    }
    const calls = (kernels: string[], name: string) => kernels.filter((k) => k === name).length;
    assert.equal(calls(got.kernels, 'MgpuBatchNormTrain'), bns, `kernels: ${got.kernels.join(' ')}`);
    assert.equal(calls(got.kernels, 'MgpuBatchNormTrainGrad'), bns);
    assert.equal(calls(got.kernels, 'FusedBatchNorm'), 0);
    assert.equal(calls(want.kernels, 'MgpuBatchNormTrain'), 0, "tfjs's own call is the reference");
    let moved = 0;
    want.weights.forEach((v, i) => (moved = Math.max(moved, Math.abs(v - initial[i]!))));
    assert.ok(moved > 1e-3, `the weights moved only ${moved}`);
    assertClose(got.weights, want.weights, 1e-4, 1e-5, 'weights and moving statistics after 2 steps');
    fused.dispose();
    plain.dispose();
  });
}
