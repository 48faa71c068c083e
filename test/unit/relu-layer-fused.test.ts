// Every ReLU layer with a ceiling (tf.layers.reLU({ maxValue }), Keras's ReLU(6.)) trains on the
// fused kernels where wasm has them (src/worker/fused-relu-layer.ts), with tfjs's own values and
// gradients: tfjs-layers' clipByValue(relu(x), 0, max) on the cpu backend is the reference, bit for
// bit (signs of zeros included, a NaN's sign aside), for values below 0, at 0, inside, at the
// ceiling exactly (gradient dy: ClipByValue's gradient is inclusive), above it, NaN and infinite,
// with infinite and NaN gradients where the mask is 0; for 6 and for a ceiling float32 cannot hold
// (0.3). Through a model: the kernel runs, the saved config still says ReLU with its maxValue, and
// the weights trained fused equal tfjs's; a ReLU without a ceiling, or on a backend without the
// kernels, is tfjs's own layer.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { fuseReluLayer, RELU_MAX, unfuseReluLayer } from '../../src/worker/fused-relu-layer.ts';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { trainThrough, valueAndGradient } from '../helpers/activation-layer.ts';

tf.env().set('IS_TEST', true);
after(() => {
  unfuseReluLayer(tf);
  unregisterWasmGradKernels(tf);
});

const fround = Math.fround;
const X = [-3, -0.5, -0, 0, 1e-7, 0.25, fround(0.3), 0.30000002, 0.5, 3, 5.999, 6, 6.0001, 9, NaN, -Infinity, Infinity];
// Non-finite dy where the mask is 0: below 0, above either ceiling, and at NaN.
const DY = X.map((_, i) => (i === 1 ? Infinity : i === 12 ? -Infinity : i === 13 ? NaN : i === 3 ? NaN : 1 + i / 10));

async function useBackend(backend: string, fused: boolean): Promise<void> {
  await tf.setBackend(backend);
  if (backend === 'wasm') registerWasmGradKernels(tf);
  if (fused) fuseReluLayer(tf);
  else unfuseReluLayer(tf);
}

/** y and dx of a ReLU layer applied to X, weighted by DY, on a backend, fused or not. */
async function run(backend: string, fused: boolean, maxValue: number | undefined): Promise<{ y: number[]; dx: number[] }> {
  await useBackend(backend, fused);
  return valueAndGradient(tf, tf.layers.reLU({ maxValue }), X, DY);
}

// Bit for bit, a NaN's sign and payload aside (the cpu backend's NaN is negative, C's positive).
const bits = (a: number[]) => Array.from(new Uint32Array(Float32Array.from(a, (v) => (Number.isNaN(v) ? NaN : v)).buffer));

for (const maxValue of [6, 0.3]) {
  test(`fused on wasm, maxValue ${maxValue}: tfjs's values and gradients (cpu, op by op), at 0, the ceiling and NaN too`, async () => {
    const want = await run('cpu', false, maxValue);
    const got = await run('wasm', true, maxValue);
    assert.deepEqual(bits(got.y), bits(want.y));
    assert.deepEqual(bits(got.dx), bits(want.dx));
    const atCeiling = X.indexOf(maxValue === 6 ? 6 : fround(0.3));
    assert.equal(want.dx[atCeiling], fround(DY[atCeiling]!), 'the reference: the gradient passes at the ceiling exactly');
  });
}

/** The kernels one forward and backward of this layer on x run. */
async function kernelsRun(layer: tf.layers.Layer, x: tf.Tensor | tf.Tensor[]): Promise<string[]> {
  const { kernelNames } = await tf.profile(() =>
    tf.grad((t: tf.Tensor) => (layer.apply(Array.isArray(x) ? [t] : t) as tf.Tensor).sum())(Array.isArray(x) ? x[0]! : x),
  );
  return kernelNames;
}

test('fused on wasm: the kernels run, not the op-by-op clip and its comparisons, for any ceiling >= 0 and a list of one tensor', async () => {
  await useBackend('wasm', true);
  for (const [maxValue, x] of [
    [6, tf.tensor1d([1, 7])],
    [0, tf.tensor1d([1, -1])],
    [6, [tf.tensor1d([1, 7])]],
  ] as const) {
    const names = await kernelsRun(tf.layers.reLU({ maxValue }), x as tf.Tensor | tf.Tensor[]);
    assert.ok(names.includes(RELU_MAX) && names.includes('MgpuReluMaxGrad'), `maxValue ${maxValue}, kernels run: ${names.join(', ')}`);
    for (const op of ['ClipByValue', 'LogicalAnd', 'Select']) assert.ok(!names.includes(op), `${op} ran: ${names.join(', ')}`);
  }
  unfuseReluLayer(tf);
  const names = await kernelsRun(tf.layers.reLU({ maxValue: 6 }), tf.tensor1d([1, 7]));
  assert.ok(names.includes('ClipByValue') && !names.includes(RELU_MAX), `unfused, kernels run: ${names.join(', ')}`);
});

test("tfjs's call where the kernels do not apply: no ceiling (undefined, or null as a Keras ReLU() says), int32, no kernel (cpu), and its errors", async () => {
  await useBackend('wasm', true);
  for (const maxValue of [undefined, null]) {
    const names = await kernelsRun(tf.layers.reLU({ maxValue: maxValue as never }), tf.tensor1d([1, -1]));
    assert.ok(names.includes('Relu') && !names.includes(RELU_MAX), `maxValue ${maxValue}, kernels run: ${names.join(', ')}`);
  }
  // int32 goes to tfjs's call (whose clip on wasm 4.22 lets 9 through: its bits, not ours, are tested here).
  const ints = tf.tensor1d([-2, 3, 9], 'int32');
  const intsOut = async (fused: boolean) => {
    await useBackend('wasm', fused);
    const y = tf.layers.reLU({ maxValue: 6 }).apply(ints) as tf.Tensor;
    return [y.dtype, Array.from(await y.data())];
  };
  assert.deepEqual(await intsOut(true), await intsOut(false));
  await useBackend('wasm', true);
  assert.throws(() => tf.layers.reLU({ maxValue: -1 }).apply(tf.tensor1d([1])), /Error in clip: min \(0\) must be less than or equal to max \(-1\)/);
  assert.throws(() => tf.layers.reLU({ maxValue: 6 }).apply([tf.tensor1d([1]), tf.tensor1d([2])]), /Expected Tensor length to be 1; got 2/);
  assert.deepEqual(await run('cpu', true, 6), await run('cpu', false, 6));
});

test('a model with ReLU(maxValue 6) saves it as such, and trains the same weights fused as not', async () => {
  const train = async (fused: boolean) => {
    await useBackend('wasm', fused);
    return trainThrough(tf, tf.layers.reLU({ maxValue: 6 }), 3);
  };
  const plain = await train(false);
  const fused = await train(true);
  assert.match(fused.json, /"class_name":"ReLU","config":\{"max_value":6/);
  fused.weights.forEach((w, i) => assert.deepEqual(Array.from(w), Array.from(plain.weights[i]!), `weight ${i}`));
});
