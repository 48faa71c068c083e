// Tile on wasm (registerWasmGradKernels puts tile.ts's block copies in place of wasm's own):
// the cpu backend's values for every dtype the wasm backend holds, for the batch-norm gradient's
// case (a [1, 1, 1, C] vector over a whole activation), tiles along inner, outer and several
// axes, reps of 1 everywhere, and the many-tiny-runs cases that go to wasm's own kernel.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';

tf.env().set('IS_TEST', true);
after(() => unregisterWasmGradKernels(tf));

const CASES: [number[], number[]][] = [
  [
    [1, 1, 1, 64],
    [4, 8, 8, 1],
  ],
  [
    [3, 4],
    [2, 3],
  ],
  [
    [2, 1, 5],
    [1, 4, 2],
  ],
  [[7], [3]],
  [
    [2, 3, 4],
    [1, 1, 1],
  ],
  [
    [1, 2],
    [50, 9],
  ],
  [
    [2, 3, 1, 9],
    [3, 1, 5, 2],
  ],
  [
    [100, 1],
    [1, 20],
  ], // runs of 1: wasm's kernel
  [
    [40, 1, 1],
    [1, 3, 3],
  ], // runs of 1: wasm's kernel
];

for (const [shape, reps] of CASES) {
  for (const dtype of ['float32', 'int32', 'bool'] as const) {
    test(`tile of [${shape}] by [${reps}] (${dtype}) == cpu`, async () => {
      const n = shape.reduce((a, b) => a * b, 1);
      const values: number[] | boolean[] =
        dtype === 'bool' ? Array.from({ length: n }, (_, i) => i % 3 === 0) : Array.from({ length: n }, (_, i) => i * 1.5 - 3);
      await tf.setBackend('cpu');
      const want = await tf.tile(tf.tensor(values, shape, dtype), reps).data();
      await tf.setBackend('wasm');
      registerWasmGradKernels(tf);
      const got = tf.tile(tf.tensor(values, shape, dtype), reps);
      assert.deepEqual(
        got.shape,
        shape.map((d, i) => d * reps[i]!),
      );
      assert.deepEqual(Array.from(await got.data()), Array.from(want));
    });
  }
}

test("the kernel in place on wasm is ours, and unregistering puts wasm's back", async () => {
  await tf.setBackend('wasm');
  unregisterWasmGradKernels(tf);
  const own = tf.getKernel('Tile', 'wasm').kernelFunc;
  registerWasmGradKernels(tf);
  assert.notEqual(tf.getKernel('Tile', 'wasm').kernelFunc, own);
  unregisterWasmGradKernels(tf);
  assert.equal(tf.getKernel('Tile', 'wasm').kernelFunc, own);
});
