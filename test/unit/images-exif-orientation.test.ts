// orientation: exif turns each image upright by its EXIF orientation before it is resized (3: a
// half turn, 6: a quarter turn clockwise, 8: a quarter turn anticlockwise); the default, stored,
// keeps the pixels as the file stores them. The expected pixels are the stored ones turned here,
// by index.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { decodeInto } from '../../src/data/images/decode-image.ts';
import { decodeSpec } from '../../src/data/images/decode-spec.ts';
import { requireSharp } from '../../src/data/images/sharp-module.ts';
import { validateConfig } from '../../src/config/validate.ts';
import type { ImageSource } from '../../src/config/types.ts';
import { digitSource } from '../helpers/digit-images.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const sharp = createRequire(import.meta.url)('sharp') as typeof import('sharp').default;
const H = 4; // as stored
const W = 6;
const stored = Uint8Array.from({ length: H * W }, (_, i) => 20 + 9 * i);
const dir = tempDir('images-exif');
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));

/** The row `file` decodes to, at size [h, w], grey, 0-255. */
async function decode(file: string, h: number, w: number, orientation: 'stored' | 'exif'): Promise<Uint8Array> {
  const spec = decodeSpec({ ...digitSource(dir), size: [h, w], rescale: 'none', orientation }, false, 1);
  const out = new Uint8Array(h * w);
  await decodeInto(requireSharp('data.train'), file, spec, 0, 0, new Float32Array(256), out);
  return out;
}

/** Pixel (y, x) of the upright image, from the stored pixels `s` [H, W]. */
const TURNS: Record<number, { h: number; w: number; at: (s: Uint8Array, y: number, x: number) => number }> = {
  3: { h: H, w: W, at: (s, y, x) => s[(H - 1 - y) * W + (W - 1 - x)]! },
  6: { h: W, w: H, at: (s, y, x) => s[(H - 1 - x) * W + y]! },
  8: { h: W, w: H, at: (s, y, x) => s[x * W + (W - 1 - y)]! },
};

for (const o of [3, 6, 8]) {
  test(`EXIF orientation ${o}: exif turns it upright, stored keeps the stored pixels`, async () => {
    const file = path.join(dir, `o${o}.jpg`);
    await sharp(Buffer.from(stored), { raw: { width: W, height: H, channels: 1 } })
      .jpeg({ quality: 100 })
      .withMetadata({ orientation: o })
      .toFile(file);
    const asStored = await decode(file, H, W, 'stored'); // what the JPEG holds (lossy: not exactly `stored`)
    assert.ok(
      asStored.every((v, i) => Math.abs(v - stored[i]!) <= 8),
      'the stored pixels come back as written, near enough for a JPEG',
    );
    const t = TURNS[o]!;
    const expected = Uint8Array.from({ length: t.h * t.w }, (_, i) => t.at(asStored, Math.floor(i / t.w), i % t.w));
    assert.deepEqual(await decode(file, t.h, t.w, 'exif'), expected);
  });
}

test('a PNG of the size asked, with EXIF orientation 3: turned too (not the fast PNG path, which reads no EXIF)', async () => {
  const file = path.join(dir, 'o3.png');
  const png = (meta: boolean) => {
    const img = sharp(Buffer.from(stored), { raw: { width: W, height: H, channels: 1 } })
      .toColourspace('b-w')
      .png();
    return (meta ? img.withMetadata({ orientation: 3 }) : img).toBuffer();
  };
  // sharp's PNG with metadata also has a colour profile (iCCP), which the fast path leaves to
  // sharp: the eXIf chunk alone is put into a plain PNG, after its IHDR, for the fast path's case.
  const withExif = await png(true);
  const at = withExif.indexOf('eXIf') - 4;
  const chunk = withExif.subarray(at, at + 12 + withExif.readUInt32BE(at));
  const plain = await png(false);
  fs.writeFileSync(file, Buffer.concat([plain.subarray(0, 33), chunk, plain.subarray(33)]));
  assert.deepEqual(await decode(file, H, W, 'stored'), stored);
  const t = TURNS[3]!;
  assert.deepEqual(
    await decode(file, H, W, 'exif'),
    Uint8Array.from({ length: H * W }, (_, i) => t.at(stored, Math.floor(i / W), i % W)),
  );
});

test('orientation is stored by default, exif when asked, and nothing else', () => {
  const raw = (orientation?: unknown) => ({
    model: { module: path.join(dir, 'm.mjs') },
    loss: 'sparseCategoricalCrossentropy',
    data: { train: { type: 'images', dir, size: [4, 4], ...(orientation === undefined ? {} : { orientation }) } },
    training: { batchSize: 2, steps: 1 },
    optimizer: { name: 'sgd' },
  });
  fs.writeFileSync(path.join(dir, 'm.mjs'), 'export default () => null;\n');
  const source = (o?: unknown) => validateConfig(raw(o), { configPath: null, cwd: dir }).data.train as ImageSource;
  assert.equal(source().orientation, 'stored');
  assert.equal(source('exif').orientation, 'exif');
  assert.throws(() => source('auto'), /data\.train\.orientation/);
});
