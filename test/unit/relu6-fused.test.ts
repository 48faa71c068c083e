// Every ReLU6 activation trains on the fused kernels where wasm has them (src/worker/fused-relu6.ts),
// with tfjs's own values and gradients: tfjs-layers' minimum(6, relu(x)) on the cpu backend is the
// reference, for values below 0, at 0, inside, at 6 exactly (gradient 0, as tfjs's Greater makes
// it), above 6, and NaN, with infinite and NaN gradients where the mask is 0 (NaN, as tfjs's
// products by 0 give), bit for bit (signs of zeros included, a NaN's sign aside); through a layer of a model, whose saved config still says relu6; and on a
// backend without the kernels (cpu) the layer is tfjs's own.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { fuseRelu6, RELU6, unfuseRelu6 } from '../../src/worker/fused-relu6.ts';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { trainThrough, valueAndGradient } from '../helpers/activation-layer.ts';

tf.env().set('IS_TEST', true);
after(() => {
  unfuseRelu6(tf);
  unregisterWasmGradKernels(tf);
});

const X = [-3, -0.5, 0, 1e-7, 0.5, 3, 5.999, 6, 6.0001, 9, NaN, -Infinity, Infinity, -0, 0]; // the last two with finite dy
const DY = X.map((_, i) => (i === 1 ? Infinity : i === 8 ? -Infinity : i === 2 ? NaN : 1 + i / 10)); // non-finite dy masked too

/** y and dx of a relu6 activation layer applied to X, weighted by DY, on a backend, fused or not. */
async function run(backend: string, fused: boolean): Promise<{ y: number[]; dx: number[] }> {
  await tf.setBackend(backend);
  if (backend === 'wasm') registerWasmGradKernels(tf);
  if (fused) fuseRelu6(tf);
  else unfuseRelu6(tf);
  return valueAndGradient(tf, tf.layers.activation({ activation: 'relu6' }), X, DY);
}

test("fused on wasm: tfjs's values and gradients (cpu, op by op), at 0, 6 and NaN too", async () => {
  const want = await run('cpu', false);
  const got = await run('wasm', true);
  // Bit for bit, a NaN's sign and payload aside (the cpu backend's NaN is negative, C's positive).
  const bits = (a: number[]) => Array.from(new Uint32Array(Float32Array.from(a, (v) => (Number.isNaN(v) ? NaN : v)).buffer));
  assert.deepEqual(bits(got.y), bits(want.y));
  assert.deepEqual(bits(got.dx), bits(want.dx));
  assert.equal(want.dx[X.indexOf(6)], 0, 'the reference: no gradient at 6 exactly');
});

test('fused on wasm: the kernel runs (not the op-by-op minimum)', async () => {
  await tf.setBackend('wasm');
  registerWasmGradKernels(tf);
  fuseRelu6(tf);
  const layer = tf.layers.activation({ activation: 'relu6' });
  const { kernelNames } = await tf.profile(() => layer.apply(tf.tensor1d([1, 7])) as tf.Tensor);
  assert.ok(kernelNames.includes(RELU6), `kernels run: ${kernelNames.join(', ')}`);
  assert.ok(!kernelNames.includes('Minimum'), `kernels run: ${kernelNames.join(', ')}`);
});

test("where the backend has no kernel (cpu) the fused layer is tfjs's", async () => {
  const want = await run('cpu', false);
  const got = await run('cpu', true);
  assert.deepEqual(got, want);
});

test('a model with a relu6 layer saves it as relu6, and trains the same weights fused as not', async () => {
  const train = async (fused: boolean) => {
    await tf.setBackend('wasm');
    registerWasmGradKernels(tf);
    if (fused) fuseRelu6(tf);
    else unfuseRelu6(tf);
    return trainThrough(tf, tf.layers.activation({ activation: 'relu6' }), 2);
  };
  const plain = await train(false);
  const fused = await train(true);
  assert.match(fused.json, /"activation":"relu6"/);
  fused.weights.forEach((w, i) => assert.deepEqual(Array.from(w), Array.from(plain.weights[i]!), `weight ${i}`));
});
