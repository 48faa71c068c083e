// A model with a SeparableConv2D of depth multiplier 2, saved as mgpu-train saves it
// (savedTopology, src/worker/saved-topology.ts), loads in plain tfjs with the same weights and
// predicts the same. tfjs-layers 4.22's SeparableConv2D leaves depthMultiplier out of its config,
// so model.toJSON alone gives a model.json that builds a multiplier of 1, whose depthwise kernel
// [2, 2, 3, 1] cannot take the saved [2, 2, 3, 2]: the load fails.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { savedTopology } from '../../src/worker/saved-topology.ts';
import { randomUniform, seededRandom } from '../helpers/close.ts';

before(async () => {
  await tf.setBackend('cpu');
});

function model(): tf.LayersModel {
  const input = tf.input({ shape: [5, 5, 3] });
  let x = tf.layers.separableConv2d({ filters: 4, kernelSize: 2, depthMultiplier: 2, name: 'sep' }).apply(input) as tf.SymbolicTensor;
  x = tf.layers.depthwiseConv2d({ kernelSize: 2, depthMultiplier: 3, name: 'dw' }).apply(x) as tf.SymbolicTensor;
  x = tf.layers.flatten().apply(x) as tf.SymbolicTensor;
  return tf.model({ inputs: input, outputs: tf.layers.dense({ units: 2, name: 'fc' }).apply(x) as tf.SymbolicTensor });
}

async function saveLoad(m: tf.LayersModel, topology: unknown): Promise<tf.LayersModel> {
  const specs = m.weights.map((w) => ({ name: w.originalName, shape: w.shape as number[], dtype: 'float32' as const }));
  const data = new Float32Array(m.getWeights().flatMap((w) => Array.from(w.dataSync())));
  return await tf.loadLayersModel(tf.io.fromMemory({ modelTopology: topology as object, weightSpecs: specs, weightData: data.buffer }));
}

test("savedTopology keeps a SeparableConv2D's depth multiplier: plain tfjs loads it and predicts the same", async () => {
  const m = model();
  const x = tf.tensor4d(randomUniform(seededRandom(4), 2 * 5 * 5 * 3), [2, 5, 5, 3]);
  const loaded = await saveLoad(m, savedTopology(m));
  assert.equal((loaded.getLayer('sep') as unknown as { depthMultiplier: number }).depthMultiplier, 2);
  assert.deepEqual((loaded.predict(x) as tf.Tensor).dataSync(), (m.predict(x) as tf.Tensor).dataSync());
  const again = await saveLoad(loaded, savedTopology(loaded));
  assert.deepEqual((again.predict(x) as tf.Tensor).dataSync(), (m.predict(x) as tf.Tensor).dataSync(), 'saved a second time');
});

test("tfjs's own toJSON loses it (why savedTopology adds it): the load fails on the depthwise kernel's shape", async () => {
  const m = model();
  await assert.rejects(saveLoad(m, m.toJSON(null, false)), /shape/i);
});
