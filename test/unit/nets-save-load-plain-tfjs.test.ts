// A network by name is an ordinary tfjs LayersModel of standard layers: saved as model.json and
// weights and loaded back by plain tf.loadLayersModel (no custom class registered), it predicts
// what it predicted before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tensor, io } from '@tensorflow/tfjs';
import { buildNet, NET_NAMES } from '../../src/nets/nets-table.ts';
import { withSeededMathRandom } from '../../src/shared/rng.ts';
import { loadTf } from '../helpers/train-fixture.ts';

for (const name of NET_NAMES) {
  test(`${name}: saved, loaded by plain tf.loadLayersModel, predicts the same`, async () => {
    const tf = await loadTf();
    const side = name === 'lenet' ? 28 : 32;
    const model = withSeededMathRandom(5, () => buildNet(tf, name, { classes: 4, inputShape: [side, side, 3] }));
    let saved: io.ModelArtifacts | null = null;
    await model.save(tf.io.withSaveHandler(async (a) => ((saved = a), { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON' } })));
    const loaded = await tf.loadLayersModel(tf.io.fromMemory(saved!));
    const x = tf.randomUniform([2, side, side, 3], 0, 1, 'float32', 9);
    const [a, b] = [model.predict(x) as Tensor, loaded.predict(x) as Tensor];
    assert.deepEqual(b.shape, [2, 4]);
    assert.deepEqual(Array.from(b.dataSync()), Array.from(a.dataSync()));
    tf.dispose([x, a, b]);
    model.dispose();
    loaded.dispose();
  });
}
