// Brightness then contrast jitter against a reference in plain tfjs from the documented rules
// (torchvision's adjust_brightness, adjust_contrast): factors b then c, each uniform in
// [max(0, 1 - j), 1 + j] from the sample's stream (lo + (hi - lo) * float()); x = clip(x * b,
// 0, 1); m = the mean of 0.299 R + 0.587 G + 0.114 B; x = clip(c * x + (1 - c) * m, 0, 1).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { loadImages, type ImageSplit } from '../../src/data/images/load-images.ts';
import type { ImageSource } from '../../src/config/types.ts';
import { mulberry32, streamState } from '../../src/shared/rng.ts';
import { loadTf } from '../helpers/train-fixture.ts';

const sharp = createRequire(import.meta.url)('sharp') as typeof import('sharp').default;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-jitter-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const N = 6;
const [H, W] = [6, 5];
const J = 0.5;
const SEED = 3;
const pixels = Array.from({ length: N }, (_, i) => Uint8Array.from({ length: H * W * 3 }, (_, k) => (k * 53 + i * 97 + 7) % 256));
let split: ImageSplit;
after(() => split.pipeline.close());

test('set up: 6 RGB PNGs', async () => {
  fs.mkdirSync(path.join(dir, 'c'));
  for (let i = 0; i < N; i++)
    await sharp(pixels[i], { raw: { width: W, height: H, channels: 3 } })
      .png()
      .toFile(path.join(dir, 'c', `${i}.png`));
  const src: ImageSource = {
    type: 'images',
    dir,
    list: null,
    size: [H, W],
    channels: 3,
    resize: 'stretch',
    rescale: 'unit',
    normalize: null,
    augment: { flip: null, crop: null, randomResizedCrop: null, brightness: J, contrast: J },
  };
  split = loadImages(src, 'data.train', null, { threads: 1, prefetch: 2, seed: SEED, localWorkers: 1 });
});

test('each row is the tfjs reference (within float32 rounding)', async () => {
  const tf = await loadTf();
  const idx = Uint32Array.from({ length: N }, (_, i) => i);
  await split.pipeline.ready(idx, 2);
  const out = new Uint8Array(N * H * W * 3 * 4);
  split.features.gather(idx, out, 0, 2);
  const got = new Float32Array(out.buffer);
  for (let i = 0; i < N; i++) {
    const rng = mulberry32(streamState(0x41554731, SEED, 2, i));
    const factor = () => Math.max(0, 1 - J) + (1 + J - Math.max(0, 1 - J)) * rng.float();
    const [b, c] = [factor(), factor()];
    const ref = tf.tidy(() => {
      const x = tf.clipByValue(tf.mul(tf.div(tf.tensor3d(pixels[i]!, [H, W, 3], 'float32'), 255), b), 0, 1);
      const m = tf.mean(tf.sum(tf.mul(x, tf.tensor1d([0.299, 0.587, 0.114])), -1));
      return tf.clipByValue(tf.add(tf.mul(x, c), tf.mul(m, 1 - c)), 0, 1).dataSync();
    });
    ref.forEach((v, k) =>
      assert.ok(Math.abs(got[i * H * W * 3 + k]! - v) <= 1e-6, `sample ${i} value ${k}: ${got[i * H * W * 3 + k]} vs ${v} (b ${b}, c ${c})`),
    );
  }
});
