// predict's CSV names each image as --input gave it: a relative folder or file stays relative
// (the folder as written, then the path below it), an absolute one stays absolute.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runPredict } from '../../src/coordinator/inference.ts';
import { train } from '../../src/coordinator/train.ts';
import { writeDigitFolder, writeDigitModel } from '../helpers/digit-images.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('predict-paths');

const pathsOf = (csv: string) =>
  fs
    .readFileSync(csv, 'utf8')
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((l) => l.split(',')[0]);

test('relative --input paths are written relative, absolute ones absolute', async () => {
  const trainSet = await writeDigitFolder(path.join(dir, 'train'), 60);
  const photos = await writeDigitFolder(path.join(dir, 'photos'), 6, { offset: 500 });
  const cfg = buildConfig(
    dir,
    {
      name: 'p',
      model: { module: writeDigitModel(dir) },
      loss: 'sparseCategoricalCrossentropy',
      data: { train: { type: 'images', dir: trainSet.dir, size: [28, 28], channels: 1 }, threads: 1 },
      training: { batchSize: 20, steps: 1, seed: 1 },
      optimizer: { name: 'sgd' },
    },
    1,
  );
  await train(cfg, silent);
  const model = { dir: path.join(cfg.runDir, 'final'), ema: false };
  const below = photos.files.map((f) => path.relative(photos.dir, f));
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    await runPredict(cfg, silent, model, ['photos'], path.join(dir, 'folder.csv'));
    assert.deepEqual(
      pathsOf(path.join(dir, 'folder.csv')),
      below.map((b) => `photos${path.sep}${b}`),
    );
    await runPredict(cfg, silent, model, ['./photos/'], path.join(dir, 'dot.csv'));
    assert.deepEqual(
      pathsOf(path.join(dir, 'dot.csv')),
      below.map((b) => `./photos${path.sep}${b}`),
    );
    const one = path.join('photos', below[0]!);
    await runPredict(cfg, silent, model, [one, photos.dir], path.join(dir, 'mixed.csv'));
    assert.deepEqual(pathsOf(path.join(dir, 'mixed.csv')), [one, ...photos.files]);
  } finally {
    process.chdir(cwd);
  }
});
