// The images line of the run header says how the images are made: the resize mode, the EXIF
// orientation when applied, and the augmentation in use (or none); one class is singular.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadImages } from '../../src/data/images/load-images.ts';
import { digitSource, writeDigitFolder } from '../helpers/digit-images.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('images-header');
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const opts = { threads: 1, prefetch: 1, seed: 1, localWorkers: 1 };

async function line(src: Parameters<typeof loadImages>[0], keyPath = 'data.train'): Promise<string> {
  const split = loadImages(src, keyPath, null, opts);
  try {
    return split.pipeline.describe();
  } finally {
    await split.pipeline.close();
  }
}

test('resize mode, orientation and augmentation are in the images line', async () => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 6);
  const augment = { flip: 'horizontal' as const, crop: { padding: 2 }, randomResizedCrop: null, brightness: 0.2, contrast: null };
  const trained = await line(digitSource(digits.dir, { resize: 'crop', augment, orientation: 'exif' }));
  assert.match(trained, /28x28x1 float32, resize crop, EXIF orientation applied, augment flip horizontal, crop padding 2, brightness 0\.2;/);
  assert.match(await line(digitSource(digits.dir)), /resize stretch, no augmentation;/);
  // data.eval is never augmented: its line says so, whatever the source's augment key.
  assert.match(await line(digitSource(digits.dir, { augment }), 'data.eval'), /resize stretch, no augmentation;/);
});

test('one class folder is "1 class"', async () => {
  const one = path.join(dir, 'one');
  const digits = await writeDigitFolder(path.join(dir, 'all'), 3);
  const first = fs.readdirSync(digits.dir).sort()[0]!;
  fs.mkdirSync(one);
  fs.renameSync(path.join(digits.dir, first), path.join(one, first));
  assert.match(await line(digitSource(one)), / in 1 class, /);
});
