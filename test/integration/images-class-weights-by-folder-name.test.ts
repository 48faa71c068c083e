// An images source names its classes (its folders): training.classWeights takes those names, as
// with a CSV labelType: class. { dog: 4, cat: 0.5 } on a folder imgs/cat, imgs/dog trains, on 2
// workers, to the bits that { 1: 4, 0: 0.5 } gives on the same pixels as an .npy with integer
// labels (the folders sorted: cat 0, dog 1), and not to those of the unweighted run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { writeNpy } from '../../src/shared/npy.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';

const sharp = createRequire(import.meta.url)('sharp') as typeof import('sharp').default;
const dir = tempDir('images-class-weights');
const SIDE = 8;
const PER_CLASS = 6;
const CLASSES = ['cat', 'dog'];

/** PER_CLASS grey 8x8 PNGs per class in imgs/<class>/<k>.png; their pixels and labels in the folder's order (class, then name). */
async function writeFolder(): Promise<{ pixels: Uint8Array; labels: Int32Array }> {
  const pixels = new Uint8Array(CLASSES.length * PER_CLASS * SIDE * SIDE);
  const labels = new Int32Array(CLASSES.length * PER_CLASS);
  for (const [c, name] of CLASSES.entries()) {
    fs.mkdirSync(path.join(dir, 'imgs', name), { recursive: true });
    for (let k = 0; k < PER_CLASS; k++) {
      const i = c * PER_CLASS + k;
      // A class's images are brighter on one half: learnable, and each image its own.
      const px = Uint8Array.from({ length: SIDE * SIDE }, (_, p) => (p % SIDE < SIDE / 2 === (c === 0) ? 160 : 40) + ((p * 7 + i * 13) % 50));
      const img = sharp(Buffer.from(px), { raw: { width: SIDE, height: SIDE, channels: 1 } }).toColourspace('b-w');
      await img.png().toFile(path.join(dir, 'imgs', name, `${k}.png`));
      pixels.set(px, i * SIDE * SIDE);
      labels[i] = c;
    }
  }
  return { pixels, labels };
}

test('class weights by folder name weigh the classes the sorted folders index', async () => {
  const { pixels, labels } = await writeFolder();
  const features = path.join(dir, 'x.npy');
  const labelFile = path.join(dir, 'y.npy');
  writeNpy(features, { dtype: 'float32', shape: [labels.length, SIDE, SIDE, 1], data: Float32Array.from(pixels, (v) => v / 255) });
  writeNpy(labelFile, { dtype: 'int32', shape: [labels.length], data: labels });
  const model = path.join(dir, 'model.mjs');
  fs.writeFileSync(
    model,
    `export default (tf) => tf.sequential({ layers: [tf.layers.flatten({ inputShape: [${SIDE}, ${SIDE}, 1] }), tf.layers.dense({ units: 2, activation: 'softmax' })] });\n`,
  );
  const run = (name: string, source: Record<string, unknown>, classWeights: unknown) =>
    train(
      buildConfig(
        dir,
        {
          name,
          model: { module: model },
          loss: 'sparseCategoricalCrossentropy',
          data: { train: source, threads: 1 },
          training: { batchSize: 4, steps: 6, seed: 2, classWeights },
          optimizer: { name: 'sgd', learningRate: 0.5 },
        },
        2,
      ),
      silent,
    );
  const folder = { type: 'images', dir: path.join(dir, 'imgs'), size: [SIDE, SIDE], channels: 1 };
  const byName = await run('by-name', folder, { dog: 4, cat: 0.5 });
  const byIndex = await run('by-index', { type: 'npy', features, labels: labelFile }, { 1: 4, 0: 0.5 });
  const plain = await run('plain', folder, null);
  assert.equal(byName.steps, 6);
  assert.deepEqual(Buffer.from(byName.weights.buffer), Buffer.from(byIndex.weights.buffer));
  assert.notDeepEqual(Buffer.from(byName.weights.buffer), Buffer.from(plain.weights.buffer), 'the weights change training');
});
