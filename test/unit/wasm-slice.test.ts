// Slice on wasm (registerWasmGradKernels puts slice.ts's block copies in place of wasm's own):
// the cpu backend's values for every dtype the wasm backend holds, for the ZeroPadding2D
// gradient's case (a spatial window of an NHWC tensor, every channel), slices that cut the last
// axis, that span every axis, that keep one element, of ranks 1 to 6, with -1 sizes, an empty
// slice, and through tf.grads of a padding (the Slice its gradient makes).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { findKernel } from '../../src/worker/wasm-kernels/util.ts';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';

tf.env().set('IS_TEST', true);
after(() => unregisterWasmGradKernels(tf));

/** shape, begin, size */
const CASES: [number[], number[], number[]][] = [
  [
    [2, 6, 7, 3],
    [0, 1, 1, 0],
    [2, 4, 5, 3],
  ], // ZeroPadding2D's gradient: rows of W x C
  [
    [2, 6, 7, 3],
    [1, 2, 0, 1],
    [1, 3, 7, 2],
  ], // the last axis cut
  [
    [2, 6, 7, 3],
    [0, 0, 0, 0],
    [2, 6, 7, 3],
  ], // everything
  [
    [2, 6, 7, 3],
    [1, 5, 6, 2],
    [1, 1, 1, 1],
  ], // one element
  [
    [2, 6, 7, 3],
    [0, 2, 0, 0],
    [-1, -1, -1, -1],
  ], // -1: to the end
  [
    [2, 6, 7, 3],
    [0, 2, 0, 0],
    [2, 0, 7, 3],
  ], // empty
  [[9], [2], [5]],
  [
    [4, 5],
    [1, 0],
    [2, 5],
  ],
  [
    [4, 5],
    [0, 2],
    [4, 2],
  ],
  [
    [3, 4, 5],
    [1, 1, 1],
    [2, 2, 3],
  ],
  [
    [2, 3, 2, 3, 2],
    [1, 0, 1, 1, 0],
    [1, 3, 1, 2, 2],
  ],
  [
    [2, 2, 3, 2, 3, 2],
    [0, 1, 1, 0, 1, 0],
    [2, 1, 2, 2, 2, 2],
  ],
];

test('the wasm backend runs slice.ts in place of its own Slice', async () => {
  await tf.setBackend('wasm');
  const before = findKernel(tf, 'Slice', 'wasm')!.kernelFunc;
  registerWasmGradKernels(tf);
  assert.notEqual(findKernel(tf, 'Slice', 'wasm')!.kernelFunc, before);
});

for (const [shape, begin, size] of CASES) {
  for (const dtype of ['float32', 'int32', 'bool'] as const) {
    test(`slice of [${shape}] at [${begin}] size [${size}] (${dtype}) == cpu`, async () => {
      const n = shape.reduce((a, b) => a * b, 1);
      const values: number[] | boolean[] =
        dtype === 'bool' ? Array.from({ length: n }, (_, i) => i % 3 === 0) : Array.from({ length: n }, (_, i) => i * 1.5 - 3);
      await tf.setBackend('cpu');
      const want = tf.slice(tf.tensor(values, shape, dtype), begin, size);
      const wantValues = await want.data();
      await tf.setBackend('wasm');
      registerWasmGradKernels(tf);
      const got = tf.slice(tf.tensor(values, shape, dtype), begin, size);
      assert.deepEqual(got.shape, want.shape);
      assert.equal(got.dtype, dtype);
      assert.deepEqual(Array.from(await got.data()), Array.from(wantValues));
    });
  }
}

test('the gradient of a ZeroPadding2D-style pad (a Slice of dy) == cpu', async () => {
  const x = Array.from({ length: 2 * 5 * 4 * 3 }, (_, i) => Math.sin(i));
  const grad = async (backend: string) => {
    await tf.setBackend(backend);
    if (backend === 'wasm') registerWasmGradKernels(tf);
    const f = (t: tf.Tensor) =>
      tf
        .pad(t, [
          [0, 0],
          [1, 2],
          [2, 1],
          [0, 0],
        ])
        .mul(tf.range(0, 2 * 8 * 7 * 3).reshape([2, 8, 7, 3]))
        .sum();
    return Array.from(
      await tf
        .grad(f)(tf.tensor(x, [2, 5, 4, 3]))
        .data(),
    );
  };
  assert.deepEqual(await grad('wasm'), await grad('cpu'));
});
