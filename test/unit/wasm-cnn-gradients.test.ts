// Whole-model gradients on wasm (with registerWasmGradKernels) == the cpu backend's:
// a small CNN (conv2d 3x3x8 relu, maxpool, flatten, dense softmax, categorical cross-entropy),
// and, one model each, the layers a conv net is made of. Each tested layer sits behind a conv
// layer, so the gradient must also flow through it to its input (the backprop-input kernels).
// rtol 1e-4 (+ an atol floor of 1e-5 x max|expected| per variable).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { registerWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { withSeededMathRandom } from '../../src/shared/rng.ts';
import { assertClose, randomUniform, seededRandom } from '../helpers/close.ts';

// PROD only silences tfjs's "install tfjs-node" banner. (Not IS_TEST, as the other tests use: its
// kernel leak check misfires on the wasm backend's fused ops with a softmax/conv after them, with
// or without these kernels.)
tf.env().set('PROD', true);

await tf.setBackend('wasm');
registerWasmGradKernels(tf);

function close(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string): void {
  let max = 0;
  for (let i = 0; i < expected.length; i++) max = Math.max(max, Math.abs(expected[i]!));
  assertClose(actual, expected, 1e-4, 1e-5 * max, what);
}

type Grads = Map<string, Float32Array>;

/** The loss and the gradient of every trainable variable, on the current backend. */
function gradients(model: tf.LayersModel, xv: Float32Array, yv: Float32Array | null): { loss: number; grads: Grads } {
  const vars = model.trainableWeights.map((w) => (w as unknown as { val: tf.Variable }).val);
  let result!: { loss: number; grads: Grads };
  tf.tidy(() => {
    const x = tf.tensor(xv, [xv.length / sizeOf(model.inputs[0]!.shape), ...(model.inputs[0]!.shape.slice(1) as number[])]);
    // Dropout draws from Math.random: the same seed on both backends gives the same mask.
    const { value, grads } = withSeededMathRandom(1, () =>
      tf.variableGrads(() => {
        const pred = model.apply(x, { training: true }) as tf.Tensor;
        const loss = yv ? tf.mean(tf.metrics.categoricalCrossentropy(tf.tensor(yv, pred.shape), pred)) : tf.sum(tf.square(pred));
        return loss as tf.Scalar;
      }, vars),
    );
    const out: Grads = new Map();
    for (const v of vars) out.set(v.name, grads[v.name]!.dataSync() as Float32Array);
    result = { loss: value.dataSync()[0]!, grads: out };
  });
  return result;
}

/** Variables move to the active backend when a kernel first reads them: do it before the pass. */
function moveWeights(model: tf.LayersModel): void {
  tf.tidy(() => model.weights.forEach((w) => tf.add(w.read(), 0)));
}

function sizeOf(shape: (number | null)[]): number {
  return shape.slice(1).reduce<number>((a, b) => a * (b ?? 1), 1);
}

async function compareOnBackends(build: () => tf.LayersModel, batch: number, seed: number, labels: number | null, what: string): Promise<void> {
  await tf.setBackend('cpu');
  const model = withSeededMathRandom(seed, build);
  const rand = seededRandom(seed);
  const xv = randomUniform(rand, batch * sizeOf(model.inputs[0]!.shape));
  let yv: Float32Array | null = null;
  if (labels) {
    yv = new Float32Array(batch * labels);
    for (let i = 0; i < batch; i++) yv[i * labels + Math.floor(rand() * labels)] = 1;
  }
  const cpu = gradients(model, xv, yv);
  await tf.setBackend('wasm');
  moveWeights(model);
  const wasm = gradients(model, xv, yv);
  assert.equal(tf.getBackend(), 'wasm');
  assert.ok(Math.abs(wasm.loss - cpu.loss) <= 1e-4 * Math.abs(cpu.loss) + 1e-6, `${what}: loss ${wasm.loss} vs ${cpu.loss}`);
  assert.deepEqual([...wasm.grads.keys()], [...cpu.grads.keys()]);
  for (const [name, g] of cpu.grads) close(wasm.grads.get(name)!, g, `${what}: d/d ${name}`);
  model.dispose();
}

test('small CNN (conv2d 3x3x8, maxpool, flatten, dense softmax): wasm gradients == cpu', async () => {
  await compareOnBackends(
    () =>
      tf.sequential({
        layers: [
          tf.layers.conv2d({ inputShape: [12, 12, 1], filters: 8, kernelSize: 3, activation: 'relu' }),
          tf.layers.maxPooling2d({ poolSize: 2 }),
          tf.layers.flatten(),
          tf.layers.dense({ units: 10, activation: 'softmax' }),
        ],
      }),
    8,
    21,
    10,
    'small CNN',
  );
});

test('MNIST-shaped CNN (two conv blocks, 28x28x1): wasm gradients == cpu', async () => {
  await compareOnBackends(
    () =>
      tf.sequential({
        layers: [
          tf.layers.conv2d({ inputShape: [28, 28, 1], filters: 8, kernelSize: 3, activation: 'relu' }),
          tf.layers.maxPooling2d({ poolSize: 2 }),
          tf.layers.conv2d({ filters: 8, kernelSize: 3, activation: 'relu' }),
          tf.layers.maxPooling2d({ poolSize: 2 }),
          tf.layers.flatten(),
          tf.layers.dense({ units: 16, activation: 'relu' }),
          tf.layers.dense({ units: 10, activation: 'softmax' }),
        ],
      }),
    4,
    22,
    10,
    'MNIST CNN',
  );
});

// Each tested layer follows a conv layer, on an 8x8x3 input; then flatten and dense(3).
const LAYERS: [string, () => tf.layers.Layer][] = [
  ['Conv2D valid', () => tf.layers.conv2d({ filters: 4, kernelSize: 3, padding: 'valid' })],
  ['Conv2D same, strides 2', () => tf.layers.conv2d({ filters: 4, kernelSize: 3, strides: 2, padding: 'same' })],
  ['Conv2D 1x1, no bias', () => tf.layers.conv2d({ filters: 5, kernelSize: 1, useBias: false })],
  ['MaxPooling2D', () => tf.layers.maxPooling2d({ poolSize: 2 })],
  ['AveragePooling2D same', () => tf.layers.averagePooling2d({ poolSize: 3, strides: 2, padding: 'same' })],
  ['GlobalAveragePooling2D', () => tf.layers.globalAveragePooling2d({})],
  ['GlobalMaxPooling2D', () => tf.layers.globalMaxPooling2d({})],
  ['DepthwiseConv2D x2', () => tf.layers.depthwiseConv2d({ kernelSize: 3, depthMultiplier: 2 })],
  ['DepthwiseConv2D same, strides 2', () => tf.layers.depthwiseConv2d({ kernelSize: 3, strides: 2, padding: 'same' })],
  ['SeparableConv2D', () => tf.layers.separableConv2d({ filters: 4, kernelSize: 3, padding: 'same' })],
  ['Conv2DTranspose', () => tf.layers.conv2dTranspose({ filters: 3, kernelSize: 3, strides: 2, padding: 'same' })],
  ['BatchNormalization', () => tf.layers.batchNormalization({})],
  ['Dropout', () => tf.layers.dropout({ rate: 0.5 })],
  ['ZeroPadding2D', () => tf.layers.zeroPadding2d({})],
];

for (const [name, make] of LAYERS) {
  test(`${name} (behind a Conv2D): wasm gradients == cpu`, async () => {
    await compareOnBackends(
      () => {
        const input = tf.input({ shape: [8, 8, 3] });
        let h = tf.layers.conv2d({ filters: 4, kernelSize: 3, padding: 'same', activation: 'tanh' }).apply(input) as tf.SymbolicTensor;
        h = make().apply(h) as tf.SymbolicTensor;
        if (h.shape.length > 2) h = tf.layers.flatten().apply(h) as tf.SymbolicTensor;
        const out = tf.layers.dense({ units: 3 }).apply(h) as tf.SymbolicTensor;
        return tf.model({ inputs: input, outputs: out });
      },
      3,
      100 + name.length,
      null,
      name,
    );
  });
}

// Batch 1: the cpu backend's ResizeNearestNeighborGrad is wrong for batch > 1 (it reads dy of
// image 0 for every image); wasm's is right.
test('UpSampling2D (behind a Conv2D), batch 1: wasm gradients == cpu', async () => {
  await compareOnBackends(
    () => {
      const input = tf.input({ shape: [8, 8, 3] });
      let h = tf.layers.conv2d({ filters: 4, kernelSize: 3, padding: 'same', activation: 'tanh' }).apply(input) as tf.SymbolicTensor;
      h = tf.layers.upSampling2d({}).apply(h) as tf.SymbolicTensor;
      h = tf.layers.flatten().apply(h) as tf.SymbolicTensor;
      return tf.model({ inputs: input, outputs: tf.layers.dense({ units: 3 }).apply(h) as tf.SymbolicTensor });
    },
    1,
    40,
    null,
    'UpSampling2D',
  );
});

test('Conv1D and Embedding: wasm gradients == cpu', async () => {
  await compareOnBackends(
    () =>
      tf.sequential({
        layers: [tf.layers.conv1d({ inputShape: [10, 3], filters: 4, kernelSize: 3, activation: 'relu' }), tf.layers.flatten(), tf.layers.dense({ units: 2 })],
      }),
    3,
    31,
    null,
    'Conv1D',
  );
  await tf.setBackend('cpu');
  const model = withSeededMathRandom(32, () =>
    tf.sequential({
      layers: [tf.layers.embedding({ inputDim: 12, outputDim: 4, inputLength: 5 }), tf.layers.flatten(), tf.layers.dense({ units: 2 })],
    }),
  );
  const xv = Float32Array.from([1, 3, 3, 11, 0, 2, 2, 2, 7, 1]);
  const cpu = gradients(model, xv, null);
  await tf.setBackend('wasm');
  moveWeights(model);
  const wasm = gradients(model, xv, null);
  for (const [name, g] of cpu.grads) close(wasm.grads.get(name)!, g, `Embedding: d/d ${name}`);
  model.dispose();
});
