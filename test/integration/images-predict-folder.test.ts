// predict --input <a folder> (or image files) writes path,class,score for each image, in the
// folder's sorted order, with the classes and scores that predicting the same pixels from an
// .npy gives (never augmented, though training was); the image files named one by one give the
// same rows.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runPredict } from '../../src/coordinator/inference.ts';
import { train } from '../../src/coordinator/train.ts';
import { writeNpy } from '../../src/shared/npy.ts';
import { writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('images-predict');

test('a folder predicts path,class,score per image, as its pixels in an .npy do', async () => {
  const trainSet = await writeDigitFolder(path.join(dir, 'train'), 60);
  const photos = await writeDigitFolder(path.join(dir, 'photos'), 12, { offset: 500 });
  const cfg = buildConfig(
    dir,
    {
      name: 'p',
      model: { module: writeDigitModel(dir) },
      loss: 'sparseCategoricalCrossentropy',
      data: { train: { type: 'images', dir: trainSet.dir, size: [28, 28], channels: 1, augment: { flip: 'horizontal' } }, threads: 1 },
      training: { batchSize: 20, steps: 3, seed: 1 },
      optimizer: { name: 'sgd', learningRate: 0.5 },
    },
    2,
  );
  await train(cfg, silent);
  const model = { dir: path.join(cfg.runDir, 'final'), ema: false };
  const x = path.join(dir, 'photos.npy');
  writeNpy(x, { dtype: 'float32', shape: [12, 28, 28, 1], data: Float32Array.from(photos.pixels, (k) => k / 255) });
  const fromNpy = path.join(dir, 'npy.csv');
  await runPredict(cfg, silent, model, x, fromNpy);
  const fromFolder = path.join(dir, 'folder.csv');
  await runPredict(cfg, silent, model, photos.dir, fromFolder);
  const [header, ...rows] = fs.readFileSync(fromFolder, 'utf8').trimEnd().split('\n');
  assert.equal(header, 'path,class,score');
  assert.deepEqual(
    rows.map((r) => r.split(',')[0]),
    photos.files,
  );
  const classScore = fs.readFileSync(fromNpy, 'utf8').trimEnd().split('\n').slice(1);
  assert.deepEqual(
    rows.map((r) => r.split(',').slice(1).join(',')),
    classScore,
  );
  const byFile = path.join(dir, 'files.csv');
  await runPredict(cfg, silent, model, photos.files.slice(0, 3), byFile);
  assert.deepEqual(fs.readFileSync(byFile, 'utf8').trimEnd().split('\n').slice(1), rows.slice(0, 3));
});
