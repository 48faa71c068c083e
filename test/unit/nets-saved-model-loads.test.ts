// Every network by name, with and without weight decay, saved as a run saves it (the worker's
// describe, the coordinator's writeLayersModel), loads back in plain tfjs and as `model: { json }`
// and predicts what it predicted. tfjs-layers 4.22's DepthwiseConv2D saves its regularizer as its
// constraint, so mobilenet-v2 and efficientnet-b0 with weight decay once saved a model.json that
// neither could load (src/worker/saved-topology.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tensor } from '@tensorflow/tfjs';
import { buildNet, NET_NAMES, NETS } from '../../src/nets/nets-table.ts';
import { withSeededMathRandom } from '../../src/shared/rng.ts';
import { loadTf, tempDir } from '../helpers/train-fixture.ts';
import { loadAsJsonModel, loadPlain, saveAsRun } from '../helpers/saved-net.ts';

const dir = tempDir('saved-nets');

for (const name of NET_NAMES) {
  for (const weightDecay of [0, 4e-5]) {
    test(`${name}, weightDecay ${weightDecay}: saved as a run saves it, loaded by plain tfjs and by model.json, predicts the same`, async () => {
      const tf = await loadTf();
      const side = NETS[name].minSide;
      const inputShape: [number, number, number] = [side, side, NETS[name].input[2]];
      const model = withSeededMathRandom(5, () => buildNet(tf, name, { classes: 3, inputShape, weightDecay }));
      const file = saveAsRun(model, `${dir}/${name}-${weightDecay}`);
      const x = tf.randomUniform([2, ...inputShape], 0, 1, 'float32', 9);
      const want = Array.from((model.predict(x) as Tensor).dataSync());
      for (const [how, load] of [
        ['plain tfjs', loadPlain],
        ['model.json', loadAsJsonModel],
      ] as const) {
        const loaded = await load(tf, file);
        assert.deepEqual(Array.from((loaded.predict(x) as Tensor).dataSync()), want, `${how}'s predictions`);
        assert.equal(loaded.calculateLosses().length, model.calculateLosses().length, `${how}: the weight decay penalties kept`);
        loaded.dispose();
      }
      x.dispose();
      model.dispose();
    });
  }
}
