// Every network by name, with and without weight decay, saved as a run saves it (the worker's
// describe, the coordinator's writeLayersModel), loads back in plain tfjs and as `model: { json }`
// and predicts what it predicted. tfjs-layers 4.22's DepthwiseConv2D saves its regularizer as its
// constraint, so mobilenet-v2 and efficientnet-b0 with weight decay once saved a model.json that
// neither could load (src/worker/saved-topology.ts). Without weight decay, tfjs's own
// model.save, loaded back by plain tf.loadLayersModel, predicts the same too: a network by name
// is an ordinary LayersModel of standard layers, no custom class registered.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { io, LayersModel, Tensor } from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { buildNet, NET_NAMES, NETS } from '../../src/nets/nets-table.ts';
import { withSeededMathRandom } from '../../src/shared/rng.ts';
import { tempDir, type TF } from '../helpers/train-fixture.ts';
import { loadAsJsonModel, loadPlain, saveAsRun } from '../helpers/saved-net.ts';

const dir = tempDir('saved-nets');

/** Plain tfjs on its wasm backend, as a user runs inference (no mgpu-train kernel registered: forward passes need none). */
async function plainWasm(): Promise<TF> {
  const tf = (await import('@tensorflow/tfjs')) as TF;
  if (!(await tf.setBackend('wasm'))) throw new Error("tf.setBackend('wasm') failed");
  return tf;
}

/** tfjs's own model.save, in memory, loaded back by plain tf.loadLayersModel. */
async function viaTfjsSave(tf: TF, model: LayersModel): Promise<LayersModel> {
  let saved: io.ModelArtifacts | null = null;
  await model.save(tf.io.withSaveHandler(async (a) => ((saved = a), { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON' } })));
  return tf.loadLayersModel(tf.io.fromMemory(saved!));
}

for (const name of NET_NAMES) {
  for (const weightDecay of [0, 4e-5]) {
    test(`${name}, weightDecay ${weightDecay}: saved as a run saves it (and by tfjs's own save), loaded by plain tfjs and by model.json, predicts the same`, async () => {
      const tf = await plainWasm();
      const side = NETS[name].minSide;
      const inputShape: [number, number, number] = [side, side, NETS[name].input[2]];
      const model = withSeededMathRandom(5, () => buildNet(tf, name, { classes: 3, inputShape, weightDecay }));
      const file = saveAsRun(model, `${dir}/${name}-${weightDecay}`);
      const x = tf.randomUniform([2, ...inputShape], 0, 1, 'float32', 9);
      const want = Array.from((model.predict(x) as Tensor).dataSync());
      const loaders: [string, () => Promise<LayersModel>][] = [
        ['plain tfjs', () => loadPlain(tf, file)],
        ['model.json', () => loadAsJsonModel(tf, file)],
      ];
      if (weightDecay === 0) loaders.push(["tfjs's own save", () => viaTfjsSave(tf, model)]);
      for (const [how, load] of loaders) {
        const loaded = await load();
        assert.deepEqual(loaded.outputs[0]!.shape, [null, 3], `${how}: the output shape`);
        assert.deepEqual(Array.from((loaded.predict(x) as Tensor).dataSync()), want, `${how}'s predictions`);
        assert.equal(loaded.calculateLosses().length, model.calculateLosses().length, `${how}: the weight decay penalties kept`);
        loaded.dispose();
      }
      x.dispose();
      model.dispose();
    });
  }
}
