// The images line of the run header names the decoder that makes the JPEGs' pixels: the native
// one (libjpeg-turbo, with its version) where it is built, sharp with the reason where not or
// where MGPU_JPEG_DECODER=sharp turns it off.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadImages } from '../../src/data/images/load-images.ts';
import { jpegAddon, JPEG_DECODER_ENV } from '../../src/data/images/jpeg-native.ts';
import { digitSource, writeDigitFolder } from '../helpers/digit-images.ts';
import { nativeSkip } from '../helpers/native.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('images-header-jpeg');
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const skip = nativeSkip(jpegAddon().reason ?? false);

async function line(src: Parameters<typeof loadImages>[0]): Promise<string> {
  const split = loadImages(src, 'data.train', null, { threads: 1, prefetch: 1, seed: 1, localWorkers: 1 });
  try {
    return split.pipeline.describe();
  } finally {
    await split.pipeline.close();
  }
}

test('the header says libjpeg-turbo decodes the JPEGs, or sharp every image and why', { skip }, async () => {
  const digits = await writeDigitFolder(path.join(dir, 'digits'), 4, { format: 'jpeg', channels: 3 });
  assert.match(await line(digitSource(digits.dir)), /decoded by 1 thread, JPEGs by libjpeg-turbo \d+\.\d+\.\d+ \(mgpu_jpeg\), other images by sharp$/);
  process.env[JPEG_DECODER_ENV] = 'sharp';
  try {
    assert.match(await line(digitSource(digits.dir)), /decoded by 1 thread, every image by sharp \(MGPU_JPEG_DECODER=sharp\)$/);
  } finally {
    delete process.env[JPEG_DECODER_ENV];
  }
});
