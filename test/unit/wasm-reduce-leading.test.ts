// Sum and Mean over leading axes on wasm (reduce-leading.ts: column sums in float64 instead of
// wasm's transpose-then-sum) give the cpu backend's values: batch norm's case (NHWC over batch,
// height and width) with and without keepDims, axes given unsorted or negative, one leading axis
// of a 2-D tensor (a bias gradient), and no rows at all; the cases it leaves to wasm's own
// kernel (inner axes, every axis, int32) are still right.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { assertClose, randomUniform, seededRandom } from '../helpers/close.ts';

tf.env().set('IS_TEST', true);
after(() => unregisterWasmGradKernels(tf));

const CASES: { shape: number[]; axis: number | number[]; keepDims?: boolean; dtype?: 'int32' }[] = [
  { shape: [4, 6, 6, 16], axis: [0, 1, 2] },
  { shape: [4, 6, 6, 16], axis: [2, 0, 1], keepDims: true },
  { shape: [4, 6, 6, 16], axis: [-4, -3, -2] },
  { shape: [37, 10], axis: 0 },
  { shape: [0, 5], axis: 0 },
  { shape: [3, 5, 7], axis: [1, 2] }, // inner axes: wasm's own
  { shape: [3, 5, 7], axis: [0, 1, 2] }, // every axis: wasm's own
  { shape: [6, 4], axis: 0, dtype: 'int32' }, // int32: wasm's own
];

for (const c of CASES) {
  for (const op of ['sum', 'mean'] as const) {
    test(`${op} of [${c.shape}] over ${JSON.stringify(c.axis)}${c.keepDims ? ' keepDims' : ''}${c.dtype ? ` ${c.dtype}` : ''} == cpu`, async () => {
      const n = c.shape.reduce((a, b) => a * b, 1);
      const values = c.dtype ? Int32Array.from(randomUniform(seededRandom(n), n, -50, 50), Math.round) : randomUniform(seededRandom(n), n, -3, 3);
      const run = () => tf.tidy(() => tf[op](tf.tensor(values, c.shape, c.dtype ?? 'float32'), c.axis, c.keepDims));
      await tf.setBackend('cpu');
      const want = run();
      await tf.setBackend('wasm');
      registerWasmGradKernels(tf);
      const got = run();
      assert.deepEqual(got.shape, want.shape);
      assert.equal(got.dtype, want.dtype);
      assertClose(await got.data(), await want.data(), 1e-6, 1e-6, op);
    });
  }
}
