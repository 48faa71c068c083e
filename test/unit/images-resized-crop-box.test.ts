// The random resized crop's box, as torchvision's RandomResizedCrop.get_params: within the
// image, its area a fraction in [scale] of the image's, its aspect ratio (w / h) in [ratio]
// up to rounding; when 10 tries fail, the centre crop at the nearest allowed ratio.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { resizedCropBox } from '../../src/data/images/augment-draws.ts';
import { decodeInto } from '../../src/data/images/decode-image.ts';
import type { DecodeSpec } from '../../src/data/images/decode-spec.ts';
import { valueTable } from '../../src/data/images/place-row.ts';
import { mulberry32 } from '../../src/shared/rng.ts';

test('1000 boxes of a 500x375 image: inside it, area and ratio in range', () => {
  const rng = mulberry32(11);
  const [W, H] = [500, 375];
  const areas: number[] = [];
  for (let k = 0; k < 1000; k++) {
    const b = resizedCropBox(rng, W, H, [0.08, 1], [3 / 4, 4 / 3]);
    assert.ok(b.left >= 0 && b.top >= 0 && b.left + b.width <= W && b.top + b.height <= H, JSON.stringify(b));
    const area = (b.width * b.height) / (W * H);
    assert.ok(area >= 0.08 * 0.97 && area <= 1.01, `area ${area}`);
    const r = b.width / b.height;
    assert.ok(r >= (3 / 4) * 0.97 && r <= (4 / 3) * 1.03, `ratio ${r}`);
    areas.push(area);
  }
  // The boxes spread over the range, not one size.
  assert.ok(Math.min(...areas) < 0.15 && Math.max(...areas) > 0.9);
});

test('no box fits: the centre crop at the nearest allowed ratio', () => {
  // A whole-area box at ratio 2 does not fit a square: the crop is 100 wide, 50 high, centred.
  assert.deepEqual(resizedCropBox(mulberry32(1), 100, 100, [1, 1], [2, 2]), { top: 25, left: 0, width: 100, height: 50 });
  // ratio in range: the whole image.
  assert.deepEqual(resizedCropBox(mulberry32(1), 80, 60, [1, 1], [4 / 3, 4 / 3]), { top: 0, left: 0, width: 80, height: 60 });
});

test('decoding cuts the box, then stretches it: a whole-image box is the plain stretch, a smaller one is not', async () => {
  const sharp = createRequire(import.meta.url)('sharp') as typeof import('sharp').default;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-rrc-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'a.png');
  await sharp(
    Uint8Array.from({ length: 40 * 30 * 3 }, (_, i) => (i * 7) % 256),
    { raw: { width: 40, height: 30, channels: 3 } },
  )
    .png()
    .toFile(file);
  const base: DecodeSpec = { height: 12, width: 16, channels: 3, resize: 'stretch', rescale: 'none', normalize: null, augment: null, dtype: 'uint8', seed: 1 };
  const rrc = (scale: [number, number], ratio: [number, number]): DecodeSpec => ({
    ...base,
    augment: { flip: null, crop: null, brightness: null, contrast: null, randomResizedCrop: { scale, ratio } },
  });
  const decode = async (s: DecodeSpec, sample = 0) => {
    const out = new Uint8Array(12 * 16 * 3);
    await decodeInto(sharp, file, s, 0, sample, valueTable(s), out);
    return out;
  };
  const plain = await decode(base);
  assert.deepEqual(await decode(rrc([1, 1], [4 / 3, 4 / 3])), plain);
  assert.notDeepEqual(await decode(rrc([0.1, 0.5], [3 / 4, 4 / 3]), 5), plain);
});
