// flip + padded crop against a reference written in plain tfjs from the documented rules: the
// sample's stream is mulberry32(streamState('AUG1', seed, epoch, sample)); it draws the crop's
// row offset t = below(2p + 1), then its column offset l = below(2p + 1), then the flip
// (float() < 0.5); the row is the image padded by p zeros on each side, cut at (t, l) to the
// image's size, then mirrored left to right, then / 255. Eval rows are never augmented.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { loadImages, type ImageSplit } from '../../src/data/images/load-images.ts';
import { mulberry32, streamState } from '../../src/shared/rng.ts';
import { digitSource, writeDigitFolder, type DigitFolder } from '../helpers/digit-images.ts';
import { loadTf } from '../helpers/train-fixture.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-augment-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const N = 24;
const PAD = 4;
const SEED = 7;
const PX = 28 * 28;
const src = digitSource(dir, {
  augment: { flip: 'horizontal', crop: { padding: PAD }, randomResizedCrop: null, brightness: null, contrast: null },
});
let digits: DigitFolder;
const splits: ImageSplit[] = [];
after(() => Promise.all(splits.map((s) => s.pipeline.close())));

async function rows(split: ImageSplit, epoch: number): Promise<Float32Array> {
  const idx = Uint32Array.from({ length: N }, (_, i) => i);
  await split.pipeline.ready(idx, epoch);
  const out = new Uint8Array(N * PX * 4);
  split.features.gather(idx, out, 0, epoch);
  split.pipeline.release(idx, epoch);
  return new Float32Array(out.buffer);
}

async function reference(sample: number, epoch: number): Promise<{ row: Float32Array; moved: boolean }> {
  const tf = await loadTf();
  const rng = mulberry32(streamState(0x41554731, SEED, epoch, sample));
  const t = rng.below(2 * PAD + 1);
  const l = rng.below(2 * PAD + 1);
  const flip = rng.float() < 0.5;
  const row = tf.tidy(() => {
    const img = tf.tensor3d(digits.pixels.subarray(sample * PX, (sample + 1) * PX), [28, 28, 1], 'float32');
    const cut = tf.slice(
      tf.pad(img, [
        [PAD, PAD],
        [PAD, PAD],
        [0, 0],
      ]),
      [t, l, 0],
      [28, 28, 1],
    );
    return tf.div(flip ? tf.reverse(cut, 1) : cut, 255).dataSync() as Float32Array;
  });
  return { row, moved: flip || t !== PAD || l !== PAD };
}

test('set up: 24 PNG digits, a training and an eval split of them', async () => {
  digits = await writeDigitFolder(dir, N);
  const o = { threads: 2, prefetch: 2, seed: SEED, localWorkers: 1 };
  splits.push(loadImages(src, 'data.train', null, o), loadImages(src, 'data.eval', null, o));
});

test('each training row is the tfjs reference, bit for bit, in epochs 0 and 3', async () => {
  let moved = 0;
  for (const epoch of [0, 3]) {
    const got = await rows(splits[0]!, epoch);
    for (let i = 0; i < N; i++) {
      const ref = await reference(i, epoch);
      if (ref.moved) moved++;
      assert.deepEqual(got.subarray(i * PX, (i + 1) * PX), ref.row, `epoch ${epoch}, sample ${i}`);
    }
  }
  assert.ok(moved > N, `${moved} of ${2 * N} rows were flipped or shifted`);
});

test('eval rows are the plain pixels / 255, whatever the epoch', async () => {
  const got = await rows(splits[1]!, 3);
  assert.deepEqual(
    got,
    Float32Array.from(digits.pixels.subarray(0, N * PX), (k) => k / 255),
  );
});
