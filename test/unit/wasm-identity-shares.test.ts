// Identity and same-dtype Cast on wasm (identity.ts) share the input's memory instead of copying
// it, and the reference counting stays right: a clone keeps its values after the original is
// disposed (and the other way round), disposing both frees the memory (no data id left, checked
// by IS_TEST after every kernel as well), a Cast to another dtype still converts, and the ReLU
// gradient (whose Cast float32 -> float32 this is for) is the cpu backend's.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';

tf.env().set('IS_TEST', true);
before(async () => {
  await tf.setBackend('wasm');
  registerWasmGradKernels(tf);
});
after(() => unregisterWasmGradKernels(tf));

const ids = () => tf.engine().backend.numDataIds();

test('a clone shares memory and outlives its original, and the other way round; both disposed free it', async () => {
  const start = ids();
  const a = tf.tensor([1, 2, 3], [3]);
  const b = a.clone();
  assert.equal(ids(), start + 1, 'one piece of memory for both');
  a.dispose();
  assert.deepEqual(Array.from(await b.data()), [1, 2, 3]);
  const c = b.clone();
  b.dispose();
  assert.deepEqual(Array.from(await c.data()), [1, 2, 3]);
  c.dispose();
  assert.equal(ids(), start, 'nothing left');
});

test('Cast to the same dtype shares; to another dtype converts', async () => {
  const start = ids();
  const a = tf.tensor([1.5, -2.5, 0], [3]);
  const same = tf.cast(a, 'float32');
  const ints = tf.cast(a, 'int32');
  assert.equal(ids(), start + 2);
  assert.deepEqual(Array.from(await ints.data()), [1, -2, 0]);
  a.dispose();
  assert.deepEqual(Array.from(await same.data()), [1.5, -2.5, 0]);
  tf.dispose([same, ints]);
  assert.equal(ids(), start);
});

test("the gradient of relu through a dense layer is the cpu backend's, with no data id left behind", async () => {
  const x = [0.5, -1, 2, -0.25, 1.5, -3];
  const w = [0.3, -0.7, 1.1, 0.2, -0.4, 0.9];
  const grad = () =>
    tf.tidy(() =>
      tf
        .grad((v: tf.Tensor) => tf.relu(tf.matMul(tf.tensor2d(x, [2, 3]), v as tf.Tensor2D)).sum())(tf.tensor2d(w, [3, 2]))
        .dataSync(),
    );
  const start = ids();
  const got = Array.from(grad());
  assert.equal(ids(), start);
  await tf.setBackend('cpu');
  const want = Array.from(grad());
  await tf.setBackend('wasm');
  assert.deepEqual(got, want);
});
