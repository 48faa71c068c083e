// predict --input <folder> walks the folder as training walks a class folder: a class folder
// that is a symlink (to a folder outside it) is followed, so every image trained on is predicted.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { indexFolder } from '../../src/data/images/folder-index.ts';
import { imageInput } from '../../src/data/images/predict-images.ts';
import { imageExtensions, requireSharp } from '../../src/data/images/sharp-module.ts';
import { writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { buildConfig, tempDir } from '../helpers/train-fixture.ts';

test('a symlinked class folder is predicted as it is trained on', async () => {
  const dir = tempDir('images-predict-symlinks');
  const photos = await writeDigitFolder(path.join(dir, 'photos'), 12);
  const elsewhere = path.join(dir, 'elsewhere');
  const classes = fs.readdirSync(photos.dir).sort();
  const moved = classes[0]!;
  fs.mkdirSync(elsewhere);
  fs.renameSync(path.join(photos.dir, moved), path.join(elsewhere, moved));
  fs.symlinkSync(path.join(elsewhere, moved), path.join(photos.dir, moved));
  const trained = indexFolder(photos.dir, 'data.train', imageExtensions(requireSharp('data.train')), null);
  assert.equal(trained.paths.count, 12, 'training follows the link');
  const cfg = buildConfig(
    dir,
    {
      model: { module: writeDigitModel(dir) },
      loss: 'sparseCategoricalCrossentropy',
      data: { train: { type: 'images', dir: photos.dir, size: [28, 28], channels: 1 }, threads: 1 },
      training: { batchSize: 4, steps: 1 },
      optimizer: { name: 'sgd' },
    },
    1,
  );
  const got = imageInput(cfg, [photos.dir]);
  try {
    assert.deepEqual(
      got.files,
      Array.from({ length: trained.paths.count }, (_, i) => trained.paths.file(i)),
    );
  } finally {
    await got.pipeline.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
