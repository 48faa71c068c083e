// The native decoder's rows do not depend on the threads that make them: a folder of photo-like
// JPEGs of mixed sizes, augmented (random resized crop, flip), made for two epochs by 1 thread and
// by 2, in another order, is the same bytes; and they differ from sharp's (the native decoder ran).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { range } from '../../src/data/columns.ts';
import { loadImages } from '../../src/data/images/load-images.ts';
import { jpegAddon, JPEG_DECODER_ENV } from '../../src/data/images/jpeg-native.ts';
import type { ImageSource } from '../../src/config/types.ts';
import { nativeSkip } from '../helpers/native.ts';
import { photoJpeg } from '../helpers/photo-jpegs.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('jpeg-threads');
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const skip = nativeSkip(jpegAddon().reason ?? false);
const N = 12;
const SIZES: Array<[number, number]> = [
  [500, 375],
  [375, 500],
  [320, 240],
  [896, 672],
];
const augment = {
  flip: 'horizontal' as const,
  crop: null,
  randomResizedCrop: { scale: [0.08, 1] as [number, number], ratio: [0.75, 4 / 3] as [number, number] },
  brightness: null,
  contrast: null,
};
const src: ImageSource = { type: 'images', dir, list: null, size: [96, 96], channels: 3, resize: 'crop', rescale: 'none', normalize: null, augment };

async function rows(threads: number, order: number[], epoch: number): Promise<Uint8Array> {
  const split = loadImages(src, 'data.train', null, { threads, prefetch: 1, seed: 3, localWorkers: 1 });
  try {
    const idx = Uint32Array.from(order);
    await split.pipeline.ready(idx, epoch);
    const out = new Uint8Array(N * 96 * 96 * 3);
    split.features.gather(idx, out, 0, epoch);
    // back into sample order, whatever the order asked
    const sorted = new Uint8Array(out.length);
    order.forEach((s, k) => sorted.set(out.subarray(k * 96 * 96 * 3, (k + 1) * 96 * 96 * 3), s * 96 * 96 * 3));
    return sorted;
  } finally {
    await split.pipeline.close();
  }
}

test('1 thread and 2 threads, in order and reversed, make the same rows; sharp makes others', { skip }, async () => {
  for (let i = 0; i < N; i++) {
    const [w, h] = SIZES[i % SIZES.length]!;
    fs.mkdirSync(path.join(dir, `c${i % 2}`), { recursive: true });
    fs.writeFileSync(path.join(dir, `c${i % 2}`, `${String(i).padStart(2, '0')}.jpg`), await photoJpeg(w + i, h));
  }
  const forward = [...range(N)];
  for (const epoch of [0, 1]) {
    const one = await rows(1, forward, epoch);
    assert.ok(Buffer.from(one).equals(Buffer.from(await rows(2, [...forward].reverse(), epoch))), `epoch ${epoch}: 2 threads, reversed`);
  }
  process.env[JPEG_DECODER_ENV] = 'sharp';
  let bySharp: Uint8Array;
  try {
    bySharp = await rows(1, forward, 0);
  } finally {
    delete process.env[JPEG_DECODER_ENV];
  }
  assert.equal(Buffer.from(bySharp).equals(Buffer.from(await rows(1, forward, 0))), false, "the native rows, not sharp's");
});
