// runs/<name>/final/model.json + weights.bin is a plain tfjs LayersModel: tf.loadLayersModel
// loads it (here through an IOHandler reading the files) and its predictions equal those of
// the single-process reference model. Every saved tensor is compared, by position in
// model.weights, with the reference's: the BatchNorm case checks that the moving statistics
// (non-trainable, last in the flat vector) are saved under their own names too.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { io, LayersModel, Tensor } from '@tensorflow/tfjs';
import { train } from '../../src/coordinator/train.ts';
import {
  assertWeightsClose,
  buildConfig,
  loadData,
  loadTf,
  referenceTrain,
  silent,
  tempDir,
  towerReferenceTrain,
  writeDataset,
  writeModelModule,
  type ModelKind,
  type TF,
} from '../helpers/train-fixture.ts';

const dir = tempDir('final');

/** Reads model.json and the weight files it names, as plain tfjs would from a server. */
function filesHandler(modelJson: string): io.IOHandler {
  return {
    async load() {
      const json = JSON.parse(fs.readFileSync(modelJson, 'utf8'));
      const specs: io.WeightsManifestEntry[] = [];
      const parts: Buffer[] = [];
      for (const group of json.weightsManifest as io.WeightsManifestConfig) {
        for (const p of group.paths) parts.push(fs.readFileSync(path.join(path.dirname(modelJson), p)));
        specs.push(...group.weights);
      }
      const all = Buffer.concat(parts);
      return {
        modelTopology: json.modelTopology,
        weightSpecs: specs,
        weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
        format: json.format,
        generatedBy: json.generatedBy,
        convertedBy: json.convertedBy,
      };
    },
  };
}

function predict(tf: TF, model: LayersModel, x: Tensor): Float32Array {
  return tf.tidy(() => (model.predict(x) as Tensor).dataSync() as Float32Array);
}

for (const [kind, n] of [
  ['mlp', 2],
  ['batchnorm', 2],
] as const satisfies ReadonlyArray<readonly [ModelKind, number]>) {
  test(`final model (${kind}, N = ${n}) loads with tf.loadLayersModel and predicts like the reference`, async (t) => {
    const raw = {
      name: `final-${kind}`,
      model: { module: writeModelModule(dir, kind) },
      loss: 'categoricalCrossentropy',
      data: { train: writeDataset(dir, 'train', 40, 'onehot', 111) },
      training: { batchSize: 10, epochs: 2, seed: 31 },
      optimizer: { name: 'sgd', learningRate: 0.5 },
    };
    const cfg = buildConfig(dir, raw, n);
    const ref = kind === 'batchnorm' ? await towerReferenceTrain(cfg, n) : await referenceTrain(cfg);
    const r = await train(cfg, silent);
    assert.equal(r.modelPath, path.join(cfg.runDir, 'final', 'model.json'));
    assert.ok(fs.existsSync(r.modelPath), 'model.json is written');

    const tf = await loadTf();
    const loaded = await tf.loadLayersModel(filesHandler(r.modelPath));
    assert.deepEqual(loaded.inputs[0]!.shape, ref.model.inputs[0]!.shape);
    assert.deepEqual(loaded.outputs[0]!.shape, ref.model.outputs[0]!.shape);
    assert.equal(loaded.weights.length, ref.model.weights.length);
    // Weight by weight in model.weights order: every saved tensor sits under the right name.
    loaded.weights.forEach((w, i) => {
      const want = ref.model.weights[i]!;
      assert.deepEqual(w.shape, want.shape, `weight ${i} (${w.originalName}) shape`);
      assertWeightsClose(t, w.read().dataSync() as Float32Array, want.read().dataSync() as Float32Array, `${kind} saved weight ${i} ${w.originalName}`);
    });

    const data = loadData(tf, cfg.data.train);
    const got = predict(tf, loaded, data.x);
    const want = predict(tf, ref.model, data.x);
    assertWeightsClose(t, got, want, `${kind} predictions on ${data.count} samples`);
    tf.dispose([data.x, data.y]);
    loaded.dispose();
    ref.model.dispose();
  });
}
