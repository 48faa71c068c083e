// UnsortedSegmentSum on wasm (registerWasmGradKernels) == the cpu backend's: directly (float32
// and int32, ids out of range dropped, rank-2 ids) and as the gradient of gather, which is what
// an Embedding layer needs to train.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { registerWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { assertClose, randomUniform, seededRandom } from '../helpers/close.ts';

tf.env().set('IS_TEST', true);

await tf.setBackend('wasm');
registerWasmGradKernels(tf);

async function both<T>(fn: () => T): Promise<{ cpu: T; wasm: T }> {
  await tf.setBackend('cpu');
  const cpu = fn();
  await tf.setBackend('wasm');
  const wasm = fn();
  return { cpu, wasm };
}

test('UnsortedSegmentSum wasm == cpu (float32, ids repeated, missing and out of range)', async () => {
  const rand = seededRandom(3);
  const xv = randomUniform(rand, 7 * 3 * 2);
  const ids = [4, 0, 4, 2, -1, 9, 0];
  const r = await both(() => tf.tidy(() => tf.unsortedSegmentSum(tf.tensor3d(xv, [7, 3, 2]), tf.tensor1d(ids, 'int32'), 6).dataSync() as Float32Array));
  assertClose(r.wasm, r.cpu, 1e-6, 1e-7, 'float32');
  assert.deepEqual(Array.from(r.wasm.slice(6, 12)), [0, 0, 0, 0, 0, 0], 'segment 1 has no ids');
});

// The cpu backend returns float32 here (it multiplies by a float mask); wasm keeps x's dtype, as TF does.
test('UnsortedSegmentSum wasm == cpu (int32 values; dtype int32 as in TF)', async () => {
  const r = await both(() =>
    tf.tidy(() => {
      const out = tf.unsortedSegmentSum(tf.tensor2d([1, 2, 3, 4, 5, 6, 7, 8], [4, 2], 'int32'), tf.tensor1d([2, 0, 2, 1], 'int32'), 3);
      return { dtype: out.dtype, shape: out.shape, values: Array.from(out.dataSync()) };
    }),
  );
  assert.deepEqual(r.wasm.values, r.cpu.values);
  assert.deepEqual(r.wasm, { dtype: 'int32', shape: [3, 2], values: [3, 4, 7, 8, 1 + 5, 2 + 6] });
});

test('UnsortedSegmentSum on wasm takes ids of rank 2 (TF semantics; the cpu backend fails on these)', async () => {
  await tf.setBackend('wasm');
  const out = tf.tidy(() => {
    const x = tf.tensor3d([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [2, 3, 2]);
    const ids = tf.tensor2d(
      [
        [1, 0, 1],
        [2, 2, 0],
      ],
      [2, 3],
      'int32',
    );
    // tf.unsortedSegmentSum is typed for rank-1 ids; the kernel takes any prefix of x's shape.
    const o = tf.engine().runKernel<tf.Tensor>('UnsortedSegmentSum', { x, segmentIds: ids }, { numSegments: 3 });
    return { shape: o.shape, values: Array.from(o.dataSync()) };
  });
  assert.deepEqual(out, { shape: [3, 2], values: [3 + 11, 4 + 12, 1 + 5, 2 + 6, 7 + 9, 8 + 10] });
});

test('gradient of gather (Embedding) wasm == cpu', async () => {
  const rand = seededRandom(5);
  const table = randomUniform(rand, 10 * 4);
  const w = randomUniform(rand, 3 * 5 * 4);
  const idx = [1, 3, 3, 9, 0, 2, 2, 2, 7, 1, 0, 0, 5, 6, 3];
  const r = await both(() =>
    tf.tidy(() => {
      const g = tf.grad((t: tf.Tensor) => tf.sum(tf.mul(tf.gather(t, tf.tensor2d(idx, [3, 5], 'int32')), tf.tensor3d(w, [3, 5, 4]))));
      return g(tf.tensor2d(table, [10, 4])).dataSync() as Float32Array;
    }),
  );
  assertClose(r.wasm, r.cpu, 1e-6, 1e-7, 'gather grad');
});
