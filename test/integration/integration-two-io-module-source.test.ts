// A sample module may key each sample's x and y by the model's input and output names, as
// tfjs's fitDataset and Keras's dict datasets do: { x: { image, meta }, y: { class, box } }. The
// same rows as named .npy files train the same model, bit for bit (2 workers, uneven shards);
// a module that yields one x for a two-input model is refused, naming the inputs and how to key x.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { writeTwoIoData, writeTwoIoModel } from '../helpers/two-io-model.ts';

const dir = tempDir('two-io-module');
const files = writeTwoIoData(dir, 'train', 23, 5);
const base = {
  model: { module: writeTwoIoModel(dir) },
  loss: { class: 'sparseCategoricalCrossentropy', box: 'meanSquaredError' },
  lossWeights: { box: 0.5 },
  training: { batchSize: 5, epochs: 2, seed: 2 },
  optimizer: { name: 'adam', learningRate: 0.05 },
};

/** A module reading the same .npy files and yielding one sample at a time, keyed by name (keys in another order than the files'). */
function writeModule(name: string, sample: string): string {
  const file = path.join(dir, name);
  const npy = new URL('../../src/shared/npy.ts', import.meta.url).href;
  fs.writeFileSync(
    file,
    `import { readNpy } from ${JSON.stringify(npy)};
const f = ${JSON.stringify(files)};
const [image, meta, cls, box] = [f.features.image, f.features.meta, f.labels.class, f.labels.box].map(readNpy);
const row = (a, i) => Array.from(a.data.subarray(i * a.shape[1], (i + 1) * a.shape[1]));
export default function* () {
  for (let i = 0; i < cls.shape[0]; i++) yield ${sample};
}
`,
  );
  return file;
}

test('x and y keyed by input and output name train exactly as the same rows in named .npy files', async () => {
  const module = writeModule('named.ts', '{ x: { meta: row(meta, i), image: row(image, i) }, y: { box: row(box, i), class: cls.data[i] } }');
  const fromNpy = await train(buildConfig(dir, { ...base, name: 'npy', data: { train: { type: 'npy', ...files } } }, 2), silent);
  const fromModule = await train(buildConfig(dir, { ...base, name: 'module', data: { train: { type: 'module', module } } }, 2), silent);
  assert.equal(fromModule.steps, fromNpy.steps);
  assert.ok(Buffer.from(fromModule.weights.buffer).equals(Buffer.from(fromNpy.weights.buffer)), 'the same weights, bit for bit');
});

test('one x for a model with two inputs: E_DATA naming the inputs, with how to key x', async () => {
  const module = writeModule('one-x.ts', '{ x: row(image, i), y: { box: row(box, i), class: cls.data[i] } }');
  await assert.rejects(
    train(buildConfig(dir, { ...base, name: 'one-x', data: { train: { type: 'module', module } } }, 1), silent),
    (e: Error & { code?: string; hint?: string }) => {
      assert.equal(e.code, 'E_DATA');
      assert.match(e.message, /^data\.train: the model has 2 inputs \('image', 'meta'\) but module .*one-x\.ts yields one x per sample$/);
      assert.equal(e.hint, "yield x as an object by the model's input names: { image: ..., meta: ... }");
      return true;
    },
  );
});

test("y keyed by a name the model lacks: E_DATA naming the module's key and the model's outputs", async () => {
  const module = writeModule('bad-y.ts', '{ x: { meta: row(meta, i), image: row(image, i) }, y: { boxes: row(box, i), class: cls.data[i] } }');
  await assert.rejects(
    train(buildConfig(dir, { ...base, name: 'bad-y', data: { train: { type: 'module', module } } }, 1), silent),
    (e: Error & { code?: string }) => {
      assert.equal(e.code, 'E_DATA');
      assert.match(e.message, /^data\.train: module .*bad-y\.ts's y\.boxes: the model has no output 'boxes' \(its outputs: 'class', 'box'\)$/);
      return true;
    },
  );
});
