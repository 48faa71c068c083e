// The fused BatchNorm kernels on wasm (src/worker/wasm-kernels/batch-norm-train.ts) refuse what
// their loops would read wrongly, naming the kernel, the input and its shape or dtype: a per-
// channel input whose length is not x's channel count (or that is not a vector), an x with no
// channel axis, a non-float32 input, and a dy whose shape is not x's. Without these a wrong
// layer wiring would read past a buffer or normalise the wrong axis silently.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';

before(async () => {
  await tf.setBackend('wasm');
  registerWasmGradKernels(tf);
});
after(() => unregisterWasmGradKernels(tf));

const forward = (inputs: Record<string, tf.Tensor>) => () => tf.engine().runKernel('MgpuBatchNormTrain', inputs, { epsilon: 1e-3 });
const gradient = (inputs: Record<string, tf.Tensor>) => () => tf.engine().runKernel('MgpuBatchNormTrainGrad', inputs, { epsilon: 1e-3 });

test('MgpuBatchNormTrain refuses mismatched per-channel inputs, no channel axis, and non-float32', () => {
  const x = tf.zeros([2, 3]);
  const c3 = tf.ones([3]);
  assert.throws(forward({ x, gamma: tf.ones([4]), beta: c3 }), /^Error: MgpuBatchNormTrain \(wasm, mgpu\): gamma has shape \[4\], expected \[3\]$/);
  assert.throws(forward({ x, gamma: c3, beta: tf.ones([3, 1]) }), /MgpuBatchNormTrain \(wasm, mgpu\): beta has shape \[3,1\], expected \[3\]/);
  assert.throws(
    forward({ x: tf.zeros([2, 0]), gamma: tf.ones([0]), beta: tf.ones([0]) }),
    /MgpuBatchNormTrain \(wasm, mgpu\): x has shape \[2,0\], needs a channel axis last/,
  );
  assert.throws(forward({ x: tf.zeros([2, 3], 'int32'), gamma: c3, beta: c3 }), /MgpuBatchNormTrain \(wasm, mgpu\): x must be float32, got int32/);
  assert.throws(forward({ x, gamma: tf.ones([3], 'int32'), beta: c3 }), /gamma must be float32, got int32/);
  assert.throws(forward({ x, gamma: c3, beta: tf.ones([3], 'int32') }), /beta must be float32, got int32/);
});

test('MgpuBatchNormTrainGrad refuses a dy not shaped as x, and mismatched per-channel inputs', () => {
  const x = tf.zeros([2, 3]);
  const c3 = tf.ones([3]);
  const ok = { x, dy: tf.zeros([2, 3]), gamma: c3, mean: c3, variance: c3 };
  assert.doesNotThrow(() => tf.dispose(gradient(ok)()));
  assert.throws(gradient({ ...ok, dy: tf.zeros([3, 2]) }), /MgpuBatchNormTrainGrad \(wasm, mgpu\): dy has shape \[3,2\], x \[2,3\]/);
  for (const name of ['gamma', 'mean', 'variance'] as const) {
    assert.throws(
      gradient({ ...ok, [name]: tf.ones([2]) }),
      new RegExp(`MgpuBatchNormTrainGrad \\(wasm, mgpu\\): ${name} has shape \\[2\\], expected \\[3\\]`),
    );
  }
  for (const name of ['x', 'dy', 'gamma', 'mean', 'variance'] as const) {
    const bad = ok[name].shape;
    assert.throws(gradient({ ...ok, [name]: tf.zeros(bad, 'int32') }), new RegExp(`${name} must be float32, got int32`));
  }
});
