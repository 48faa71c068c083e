// A model.json whose layers are classes of the user's own (the Transformer block example's)
// trains and predicts on 2 workers when model.customLayers names the module that registers them:
// the predictions are those plain tfjs makes from the saved files with the classes registered,
// and the line after training says how to load the model. Without the key, tfjs's "Unknown
// layer" comes with the key to set.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { io, LayersModel, Tensor } from '@tensorflow/tfjs';
import registerLayers from '../../examples/transformer-block/layers.ts';
import buildModel, { FEATURES, STEPS } from '../../examples/transformer-block/model.ts';
import { sequences } from '../../examples/transformer-block/data.ts';
import { readNpy, writeNpy } from '../../src/shared/npy.ts';
import { runCli } from '../helpers/run-cli.ts';
import { loadTf, tempDir } from '../helpers/train-fixture.ts';

const LAYERS = fileURLToPath(new URL('../../examples/transformer-block/layers.ts', import.meta.url));

/** model.json + weights.bin of `model`, written by hand as tfjs's file format has them. */
async function save(model: LayersModel, dir: string): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  await model.save({
    save: async (a: io.ModelArtifacts) => {
      fs.writeFileSync(path.join(dir, 'weights.bin'), Buffer.from(a.weightData as ArrayBuffer));
      const json = { modelTopology: a.modelTopology, format: 'layers-model', weightsManifest: [{ paths: ['weights.bin'], weights: a.weightSpecs }] };
      fs.writeFileSync(path.join(dir, 'model.json'), JSON.stringify(json));
      return { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON' } };
    },
  });
  return path.join(dir, 'model.json');
}

test('model.customLayers: a model.json of custom layer classes trains and predicts on 2 workers as plain tfjs predicts', async () => {
  const tf = await loadTf();
  const asTfjs = tf as unknown as Parameters<typeof buildModel>[0]; // one module, typed as a namespace there
  registerLayers(asTfjs);
  const dir = tempDir('custom-layers-json');
  const modelJson = await save(buildModel(asTfjs), path.join(dir, 'start'));
  const samples = sequences(24, 3);
  const x = path.join(dir, 'x.npy');
  const y = path.join(dir, 'y.npy');
  writeNpy(x, { dtype: 'float32', shape: [samples.length, STEPS, FEATURES], data: Float32Array.from(samples.flatMap((s) => s.x)) });
  writeNpy(y, { dtype: 'int32', shape: [samples.length], data: Int32Array.from(samples, (s) => s.y) });
  const config = (customLayers: boolean) => {
    const file = path.join(dir, customLayers ? 'exp.json' : 'bare.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        model: { json: modelJson, ...(customLayers ? { customLayers: LAYERS } : {}) },
        loss: 'sparseCategoricalCrossentropy',
        data: { train: { type: 'npy', features: x, labels: y } },
        training: { batchSize: 8, steps: 3 },
        optimizer: { name: 'adam', learningRate: 0.01 },
      }),
    );
    return file;
  };
  const runDir = path.join(dir, 'run');
  const trained = runCli(['train', config(true), '--simulate', '2', '--backend', 'cpu', '--run-dir', runDir]);
  assert.equal(trained.code, 0, trained.stderr);
  const final = path.join(runDir, 'final');
  assert.ok(
    trained.stdout.includes(
      `model saved to ${path.join(final, 'model.json')}; load it with tf.loadLayersModel after registering its layer classes (PositionEmbedding, TransformerBlock): call the default export of ${LAYERS} with your tf first`,
    ),
    trained.stdout,
  );

  const out = path.join(dir, 'pred.npy');
  const predicted = runCli(['predict', config(true), '--checkpoint', final, '--input', x, '--output', out, '--simulate', '2', '--backend', 'cpu']);
  assert.equal(predicted.code, 0, predicted.stderr);
  // The reference: tfjs itself loads the trained files (the classes registered above).
  const json = JSON.parse(fs.readFileSync(path.join(final, 'model.json'), 'utf8'));
  const bin = fs.readFileSync(path.join(final, json.weightsManifest[0].paths[0]));
  const ref = await tf.loadLayersModel(
    tf.io.fromMemory({ modelTopology: json.modelTopology, weightSpecs: json.weightsManifest[0].weights, weightData: new Uint8Array(bin).buffer }),
  );
  const expected = (ref.predict(tf.tensor(readNpy(x).data, [samples.length, STEPS, FEATURES])) as Tensor).dataSync();
  const got = readNpy(out);
  assert.deepEqual(got.shape, [samples.length, 3]);
  got.data.forEach((v, i) => assert.ok(Math.abs(v - expected[i]!) < 1e-5, `prediction ${i}: ${v}, tfjs ${expected[i]}`));

  const bare = runCli([
    'predict',
    config(false),
    '--checkpoint',
    final,
    '--input',
    x,
    '--output',
    path.join(dir, 'bare.npy'),
    '--simulate',
    '1',
    '--backend',
    'cpu',
  ]);
  assert.equal(bare.code, 2, bare.stderr);
  assert.match(bare.stderr, /error E_MODEL: .*model\.json .* could not be loaded by tfjs: Unknown layer: PositionEmbedding/);
  assert.match(bare.stderr, /hint: the model has layers of its own classes: set model\.customLayers to a module that registers them/);
});
