// A converted Keras model.json's ReLU(6.) (class ReLU, max_value 6.0, as tf.keras writes Keras's
// MobileNetV2 and the tfjs converter keeps it) trains on the fused kernels in a worker: the tf is
// the worker's, from loadBackend('wasm'), so the wiring tested is the worker's own. One training
// step runs one MgpuReluMax and one MgpuReluMaxGrad, and none of tfjs's op-by-op clip.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadBackend, type TF } from '../../src/worker/backend.ts';
import { isReluLayerFused, unfuseReluLayer } from '../../src/worker/fused-relu-layer.ts';
import { unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';

let tf: TF;
before(async () => {
  tf = (await loadBackend('wasm')).tf;
});
after(() => {
  unfuseReluLayer(tf);
  unregisterWasmGradKernels(tf);
});

/** Dense → ReLU(6.) → Dense, as tf.keras 2 writes it. */
const topology: object = {
  class_name: 'Sequential',
  config: {
    name: 'converted',
    layers: [
      {
        class_name: 'Dense',
        config: { name: 'dense', trainable: true, batch_input_shape: [null, 5], dtype: 'float32', units: 8, activation: 'linear', use_bias: true },
      },
      { class_name: 'ReLU', config: { name: 're_lu', trainable: true, dtype: 'float32', max_value: 6.0, negative_slope: 0.0, threshold: 0.0 } },
      { class_name: 'Dense', config: { name: 'out', trainable: true, dtype: 'float32', units: 2, activation: 'linear', use_bias: true } },
    ],
  },
};

test("a Keras model.json's ReLU(6.) trains on the fused kernels in the worker's tf", async () => {
  assert.ok(isReluLayerFused(tf), "the worker's backend fused the ReLU layer");
  const model = await tf.loadLayersModel(tf.io.fromMemory({ modelTopology: topology }));
  const x = tf.randomNormal([4, 5], 0, 5, 'float32', 1);
  const opt = tf.train.sgd(0.1);
  const { kernelNames } = await tf.profile(() => {
    opt.minimize(() => (model.apply(x) as typeof x).square().mean());
  });
  const count = (name: string) => kernelNames.filter((k) => k === name).length;
  assert.equal(count('MgpuReluMax'), 1, `kernels: ${kernelNames.join(' ')}`);
  assert.equal(count('MgpuReluMaxGrad'), 1, `kernels: ${kernelNames.join(' ')}`);
  for (const op of ['ClipByValue', 'LogicalAnd', 'Select']) assert.equal(count(op), 0, `${op} ran: ${kernelNames.join(' ')}`);
});
