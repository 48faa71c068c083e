// checkModelOps against a backend made to lack kernels: the cpu backend with its MaxPoolGrad and
// UnsortedSegmentSum taken out of the registry for the test. The check names the kernel and the
// layer (MaxPooling2D, Embedding), also for a layer inside a nested model, and the backend passes
// again once the kernels are back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { MgpuError } from '../../src/shared/errors.ts';
import { checkModelOps, missingKernelOf } from '../../src/worker/op-check.ts';

tf.env().set('IS_TEST', true);
await tf.setBackend('cpu');

function without<T>(kernels: string[], fn: () => T): T {
  const saved = kernels.map((k) => tf.getKernel(k, 'cpu'));
  saved.forEach((c) => tf.unregisterKernel(c.kernelName, 'cpu'));
  try {
    return fn();
  } finally {
    saved.forEach((c) => tf.registerKernel(c));
  }
}

function error(fn: () => unknown): MgpuError {
  try {
    fn();
  } catch (err) {
    if (err instanceof MgpuError) return err;
    throw err;
  }
  assert.fail('expected an MgpuError');
}

test('missingKernelOf reads tfjs\'s "not registered" error, and nothing else', () => {
  assert.deepEqual(missingKernelOf(new Error("Kernel 'Conv2DBackpropFilter' not registered for backend 'wasm'")), {
    kernel: 'Conv2DBackpropFilter',
    backend: 'wasm',
  });
  assert.equal(missingKernelOf(new Error('shapes do not match')), null);
  assert.equal(missingKernelOf(undefined), null);
});

test('a backend without MaxPoolGrad: the max-pooling layers are named', () => {
  const model = tf.sequential({
    layers: [
      tf.layers.conv2d({ inputShape: [10, 10, 1], filters: 2, kernelSize: 3, name: 'conv' }),
      tf.layers.maxPooling2d({ poolSize: 2, name: 'pool_a' }),
      tf.layers.flatten(),
      tf.layers.dense({ units: 2, name: 'dense' }),
    ],
  });
  const err = without(['MaxPoolGrad'], () => error(() => checkModelOps(tf, model, 'cpu')));
  assert.equal(err.code, 'E_BACKEND');
  assert.equal(
    err.message,
    'backend cpu cannot train this model; it has no kernel for MaxPoolGrad (gradient of max pooling) needed by layer pool_a (MaxPooling2D)',
  );
  assert.deepEqual(checkModelOps(tf, model, 'cpu'), { checked: true });
  model.dispose();
});

test('a backend without UnsortedSegmentSum and MaxPoolGrad: both found, also inside a nested model', () => {
  const inner = tf.sequential({
    name: 'features',
    layers: [tf.layers.maxPooling1d({ inputShape: [6, 4], poolSize: 2, name: 'pool_1d' }), tf.layers.flatten()],
  });
  const input = tf.input({ shape: [6] });
  let h = tf.layers.embedding({ inputDim: 20, outputDim: 4, name: 'embed' }).apply(input) as tf.SymbolicTensor;
  h = inner.apply(h) as tf.SymbolicTensor;
  const model = tf.model({ inputs: input, outputs: tf.layers.dense({ units: 1 }).apply(h) as tf.SymbolicTensor });
  const err = without(['MaxPoolGrad', 'UnsortedSegmentSum'], () => error(() => checkModelOps(tf, model, 'cpu')));
  assert.match(err.message, /UnsortedSegmentSum \(gradient of gather, as in Embedding\) needed by layer embed \(Embedding\)(;|$)/);
  assert.match(err.message, /MaxPoolGrad \(gradient of max pooling\) needed by layer pool_1d \(MaxPooling1D\)(;|$)/);
  assert.deepEqual(checkModelOps(tf, model, 'cpu'), { checked: true });
  model.dispose();
});

test('a kernel only the objective needs is reported without a layer', () => {
  const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [3], units: 2 })] });
  const objective = (t: typeof import('@tensorflow/tfjs'), out: tf.Tensor) => t.sum<tf.Scalar>(t.atan(out));
  const err = without(['Atan'], () => error(() => checkModelOps(tf, model, 'cpu', { objective })));
  assert.equal(err.message, 'backend cpu cannot train this model; it has no kernel for Atan');
  model.dispose();
});
