// devices.replaceWasmKernels reaches the worker's backend loader: true (the default) puts
// mgpu-train's BatchMatMul in place of wasm's and registers the fused batch-norm kernels, false
// keeps wasm's own (and tfjs's op-by-op batch norm); the missing gradient kernels are added
// either way.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { loadBackend } from '../../src/worker/backend.ts';
import { unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { findKernel } from '../../src/worker/wasm-kernels/util.ts';

test("replaceWasmKernels: false keeps wasm's BatchMatMul and still adds Conv2DBackpropFilter", async () => {
  const own = (tf.getKernel('BatchMatMul', 'wasm') as tf.KernelConfig | undefined)?.kernelFunc;
  await loadBackend('wasm', { replaceWasmKernels: false });
  assert.ok(own, 'wasm registered its BatchMatMul on import');
  assert.equal(tf.getKernel('BatchMatMul', 'wasm').kernelFunc, own);
  assert.ok(tf.getKernel('Conv2DBackpropFilter', 'wasm'));
  assert.equal(findKernel(tf, 'MgpuBatchNormTrain', 'wasm'), undefined);
  unregisterWasmGradKernels(tf);
});

test("replaceWasmKernels by default replaces wasm's BatchMatMul", async () => {
  const own = tf.getKernel('BatchMatMul', 'wasm').kernelFunc;
  await loadBackend('wasm');
  assert.notEqual(tf.getKernel('BatchMatMul', 'wasm').kernelFunc, own);
  const x = tf.tensor2d([1, 2, 3, 4, 5, 6], [3, 2]);
  assert.deepEqual(Array.from(await tf.matMul(x, x, true, false).data()), [35, 44, 44, 56]);
  assert.ok(findKernel(tf, 'MgpuBatchNormTrain', 'wasm') && findKernel(tf, 'MgpuBatchNormTrainGrad', 'wasm'));
  unregisterWasmGradKernels(tf);
});
