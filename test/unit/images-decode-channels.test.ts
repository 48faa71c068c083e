// Whatever a file holds (grey, RGB, RGBA, palette, 16-bit), it decodes to the channels asked
// for: grey to 3 channels repeats the grey, RGBA drops the alpha (no blending), a palette is
// expanded, 16 bits become 8; a PNG of the split's size decodes to its exact pixels, and
// rescale 'unit' gives the float32 of k / 255.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { decodeInto } from '../../src/data/images/decode-image.ts';
import type { DecodeSpec } from '../../src/data/images/decode-spec.ts';
import { valueTable } from '../../src/data/images/place-row.ts';

const sharp = createRequire(import.meta.url)('sharp') as typeof import('sharp').default;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-decode-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const W = 5;
const H = 3;
const spec = (channels: 1 | 3, over: Partial<DecodeSpec> = {}): DecodeSpec => ({
  height: H,
  width: W,
  channels,
  resize: 'stretch',
  rescale: 'none',
  normalize: null,
  augment: null,
  dtype: 'uint8',
  seed: 0,
  ...over,
});

async function decode(file: string, s: DecodeSpec): Promise<Uint8Array> {
  const out = new Uint8Array(H * W * s.channels * (s.dtype === 'uint8' ? 1 : 4));
  await decodeInto(sharp, file, s, 0, 0, valueTable(s), out);
  return out;
}

const pixels = (channels: number) => Uint8Array.from({ length: W * H * channels }, (_, i) => (i * 37 + 11) % 256);
async function png(name: string, data: Uint8Array | Uint16Array, channels: 1 | 2 | 3 | 4, opts: { palette?: boolean; grey16?: boolean } = {}): Promise<string> {
  const file = path.join(dir, name);
  let img = sharp(data, { raw: { width: W, height: H, channels } });
  if (opts.grey16) img = img.toColourspace('grey16');
  else if (channels <= 2) img = img.toColourspace('b-w'); // else sharp writes grey as RGB
  await img.png({ palette: opts.palette ?? false }).toFile(file);
  return file;
}

test('a grey PNG decodes to its exact pixels; to 3 channels each pixel is repeated', async () => {
  const g = pixels(1);
  const file = await png('grey.png', g, 1);
  assert.deepEqual(await decode(file, spec(1)), g);
  assert.deepEqual(
    await decode(file, spec(3)),
    Uint8Array.from({ length: g.length * 3 }, (_, i) => g[Math.floor(i / 3)]!),
  );
});

test('RGBA drops the alpha channel (the colour is kept as it is, not blended)', async () => {
  const rgba = pixels(4);
  const file = await png('rgba.png', rgba, 4);
  assert.deepEqual(
    await decode(file, spec(3)),
    Uint8Array.from({ length: W * H * 3 }, (_, i) => rgba[Math.floor(i / 3) * 4 + (i % 3)]!),
  );
});

test('a palette PNG expands to its colours', async () => {
  // Four colours only, so the palette is lossless.
  const colours = [
    [255, 0, 0],
    [0, 128, 255],
    [10, 20, 30],
    [200, 200, 0],
  ];
  const rgb = Uint8Array.from({ length: W * H * 3 }, (_, i) => colours[Math.floor(i / 3) % 4]![i % 3]!);
  const file = await png('palette.png', rgb, 3, { palette: true });
  assert.equal((await sharp(file).metadata()).isPalette, true);
  assert.deepEqual(await decode(file, spec(3)), rgb);
});

test('a 16-bit grey PNG becomes 8 bits (v / 257, within 1)', async () => {
  const g16 = Uint16Array.from({ length: W * H }, (_, i) => i * 4111 + 100);
  const file = await png('grey16.png', g16, 1, { grey16: true });
  assert.equal((await sharp(file).metadata()).depth, 'ushort');
  const out = await decode(file, spec(1));
  out.forEach((v, i) => assert.ok(Math.abs(v - g16[i]! / 257) <= 1, `pixel ${i}: ${v} vs ${g16[i]! / 257}`));
});

test("rescale 'unit' gives float32(k / 255) and normalize (x - mean) / std, per channel", async () => {
  const rgb = pixels(3);
  const file = await png('rgb.png', rgb, 3);
  const unit = new Float32Array((await decode(file, spec(3, { rescale: 'unit', dtype: 'float32' }))).buffer);
  assert.deepEqual(
    unit,
    Float32Array.from(rgb, (k) => k / 255),
  );
  const normalize = { mean: [0.5, 0.25, 0], std: [0.5, 2, 0.25] };
  const norm = new Float32Array((await decode(file, spec(3, { rescale: 'unit', dtype: 'float32', normalize }))).buffer);
  assert.deepEqual(
    norm,
    Float32Array.from(rgb, (k, i) => (k / 255 - normalize.mean[i % 3]!) / normalize.std[i % 3]!),
  );
});
