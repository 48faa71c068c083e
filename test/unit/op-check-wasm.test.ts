// checkModelOps on the wasm backend before and after registerWasmGradKernels: a conv net is
// refused with E_BACKEND naming each missing kernel and the layers that need it, an MLP passes,
// and with the kernels registered the conv net passes. The check leaves the model's weights
// (BatchNormalization's moving statistics included) and the tensor count as they were.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { MgpuError } from '../../src/shared/errors.ts';
import { checkModelOps } from '../../src/worker/op-check.ts';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';

tf.env().set('PROD', true); // silences tfjs's banners; IS_TEST's leak check misfires on wasm's fused ops

await tf.setBackend('wasm');

function cnn(): tf.LayersModel {
  return tf.sequential({
    layers: [
      tf.layers.conv2d({ inputShape: [12, 12, 1], filters: 4, kernelSize: 3, activation: 'relu', name: 'c1' }),
      tf.layers.maxPooling2d({ poolSize: 2, name: 'pool' }),
      tf.layers.conv2d({ filters: 4, kernelSize: 3, activation: 'relu', name: 'c2' }),
      tf.layers.flatten({ name: 'flat' }),
      tf.layers.dense({ units: 10, activation: 'softmax', name: 'out' }),
    ],
  });
}

function separableNet(): tf.LayersModel {
  const input = tf.input({ shape: [10, 10, 3] });
  let h = tf.layers.conv2d({ filters: 4, kernelSize: 3, padding: 'same', name: 'stem' }).apply(input) as tf.SymbolicTensor;
  h = tf.layers.batchNormalization({ name: 'bn', momentum: 0.5 }).apply(h) as tf.SymbolicTensor;
  h = tf.layers.depthwiseConv2d({ kernelSize: 3, name: 'dw' }).apply(h) as tf.SymbolicTensor;
  h = tf.layers.flatten().apply(h) as tf.SymbolicTensor;
  return tf.model({ inputs: input, outputs: tf.layers.dense({ units: 2, name: 'head' }).apply(h) as tf.SymbolicTensor });
}

function catchError(fn: () => unknown): MgpuError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof MgpuError, `expected an MgpuError, got ${(err as Error | null | undefined)?.stack ?? String(err)}`);
    return err;
  }
  assert.fail('expected checkModelOps to throw');
}

test('without the wasm kernels: a CNN is refused, naming Conv2DBackpropFilter and both conv layers', () => {
  unregisterWasmGradKernels(tf);
  const model = cnn();
  const err = catchError(() => checkModelOps(tf, model, 'wasm (wasm)'));
  assert.equal(err.code, 'E_BACKEND');
  assert.equal(err.exitCode, 2);
  assert.equal(
    err.message,
    'backend wasm (wasm) cannot train this model; it has no kernel for Conv2DBackpropFilter (gradient of a convolution w.r.t. its filter) needed by layers c1 (Conv2D), c2 (Conv2D)',
  );
  assert.match(err.hint!, /--backend cpu/);
  assert.match(err.hint!, /tfjs-node/);
  model.dispose();
});

test('without the wasm kernels: every missing kernel is reported with its layers', () => {
  const model = separableNet();
  const err = catchError(() => checkModelOps(tf, model, 'wasm'));
  assert.equal(err.code, 'E_BACKEND');
  assert.match(err.message, /Conv2DBackpropFilter \([^)]*\) needed by layer stem \(Conv2D\)(;|$)/);
  assert.match(err.message, /DepthwiseConv2dNativeBackpropFilter \([^)]*\) needed by layer dw \(DepthwiseConv2D\)(;|$)/);
  assert.match(err.message, /DepthwiseConv2dNativeBackpropInput \([^)]*\) needed by layer dw \(DepthwiseConv2D\)(;|$)/);
  model.dispose();
});

test('without the wasm kernels: an MLP and a pooling-only net pass (no false alarms)', () => {
  const mlp = tf.sequential({
    layers: [tf.layers.dense({ inputShape: [784], units: 16, activation: 'relu' }), tf.layers.dense({ units: 10, activation: 'softmax' })],
  });
  assert.deepEqual(checkModelOps(tf, mlp, 'wasm'), { checked: true });
  const pool = tf.sequential({
    layers: [tf.layers.averagePooling2d({ inputShape: [8, 8, 2], poolSize: 2 }), tf.layers.flatten(), tf.layers.dense({ units: 3 })],
  });
  assert.deepEqual(checkModelOps(tf, pool, 'wasm'), { checked: true });
  tf.dispose([mlp, pool] as never);
});

test('with registerWasmGradKernels: the same models pass, and training then works', () => {
  registerWasmGradKernels(tf);
  for (const model of [cnn(), separableNet()]) {
    assert.deepEqual(checkModelOps(tf, model, 'wasm'), { checked: true });
    const vars = model.trainableWeights.map((w) => (w as unknown as { val: tf.Variable }).val);
    tf.tidy(() => {
      const { grads } = tf.variableGrads(
        () => tf.sum<tf.Scalar>(model.apply(tf.ones([2, ...(model.inputs[0]!.shape.slice(1) as number[])]), { training: true }) as tf.Tensor),
        vars,
      );
      assert.equal(Object.keys(grads).length, vars.length);
    });
    model.dispose();
  }
});

test('the check leaves weights (BatchNorm moving statistics too) and the tensor count unchanged', () => {
  const model = separableNet();
  const before = model.weights.map((w) => Array.from(w.read().dataSync()));
  const tensors = tf.memory().numTensors;
  checkModelOps(tf, model, 'wasm');
  assert.equal(tf.memory().numTensors, tensors);
  const after = model.weights.map((w) => Array.from(w.read().dataSync()));
  assert.deepEqual(after, before);
  assert.ok(model.nonTrainableWeights.length >= 2, 'the BatchNorm moving mean and variance are there');
  model.dispose();
});

test('unknown input dimensions: not checked, with the reason', () => {
  const model = tf.sequential({ layers: [tf.layers.conv2d({ inputShape: [null, null, 3], filters: 2, kernelSize: 3 }), tf.layers.globalAveragePooling2d({})] });
  const r = checkModelOps(tf, model, 'wasm');
  assert.equal(r.checked, false);
  assert.match(r.reason!, /unknown dimensions/);
  model.dispose();
});

test('an error that is not a missing kernel is thrown as it is', () => {
  const model = cnn();
  const boom = new Error('boom');
  assert.throws(
    () =>
      checkModelOps(tf, model, 'wasm', {
        objective: () => {
          throw boom;
        },
      }),
    (e) => e === boom,
  );
  model.dispose();
});
