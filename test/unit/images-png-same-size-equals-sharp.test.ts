// The PNG fast path (a plain 8-bit PNG already of the split's size, decoded without sharp)
// gives sharp's pixels bit for bit, for grey, grey+alpha, RGB and RGBA, under every scanline
// filter; every other PNG (palette, 16-bit, interlaced, another size, colour to grey,
// truncated) is left to sharp.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import zlib from 'node:zlib';
import { decodeSameSizePng } from '../../src/data/images/png-same-size.ts';
import { mulberry32 } from '../../src/shared/rng.ts';

const sharp = createRequire(import.meta.url)('sharp') as typeof import('sharp').default;
const [W, H] = [19, 13];
const rng = mulberry32(5);

/** Smooth gradients plus noise: adaptive filtering picks different filters line by line. */
function image(channels: number, noise: number): Uint8Array {
  return Uint8Array.from({ length: W * H * channels }, (_, i) => {
    const [x, y, k] = [Math.floor(i / channels) % W, Math.floor(i / channels / W), i % channels];
    return Math.max(0, Math.min(255, Math.round(x * 9 + y * 5 * (k + 1) + (rng.float() - 0.5) * noise)));
  });
}

async function sharpPixels(png: Buffer, channels: 1 | 3): Promise<Uint8Array> {
  const { data } = await sharp(png)
    .removeAlpha()
    .toColourspace(channels === 1 ? 'b-w' : 'srgb')
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  return new Uint8Array(data);
}

/** The filter byte of each scanline. */
function filters(png: Buffer, channels: number): number[] {
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const len = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + len));
    at += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  return Array.from({ length: H }, (_, y) => raw[y * (W * channels + 1)]!);
}

test('grey, grey+alpha, RGB, RGBA under every filter: sharp pixels, bit for bit', async () => {
  const seen = new Set<number>();
  for (const src of [1, 2, 3, 4] as const) {
    for (const noise of [0, 6, 60]) {
      for (const adaptiveFiltering of [true, false]) {
        const raw = sharp(image(src, noise), { raw: { width: W, height: H, channels: src } });
        // sharp writes 1 or 2 raw channels as RGB(A) unless told they are grey.
        const png = await (src <= 2 ? raw.toColourspace('b-w') : raw).png({ adaptiveFiltering, compressionLevel: 6 }).toBuffer();
        assert.equal(png[25], { 1: 0, 2: 4, 3: 2, 4: 6 }[src], 'the PNG colour type');
        filters(png, src).forEach((f) => seen.add(f));
        for (const channels of src <= 2 ? ([1, 3] as const) : ([3] as const)) {
          const fast = decodeSameSizePng(png, W, H, channels);
          assert.ok(fast, `${src} channels to ${channels}: the fast path takes it`);
          assert.deepEqual(fast, await sharpPixels(png, channels), `${src} channels to ${channels}, noise ${noise}, adaptive ${adaptiveFiltering}`);
        }
      }
    }
  }
  assert.deepEqual([...seen].sort(), [0, 1, 2, 3, 4], 'every filter type was decoded');
});

test('every other PNG is left to sharp', async () => {
  const rgb = image(3, 20);
  const png = (opts: import('sharp').PngOptions, channels = 3, data: Uint8Array | Uint16Array = rgb) =>
    sharp(data, { raw: { width: W, height: H, channels: channels as 3 } })
      .png(opts)
      .toBuffer();
  const plain = await png({});
  assert.ok(decodeSameSizePng(plain, W, H, 3));
  assert.equal(decodeSameSizePng(plain, W + 1, H, 3), null, 'another size');
  assert.equal(decodeSameSizePng(plain, W, H, 1), null, 'colour to grey (libvips converts it)');
  assert.equal(decodeSameSizePng(plain.subarray(0, plain.length - 20), W, H, 3), null, 'truncated');
  assert.equal(decodeSameSizePng(await png({ palette: true }), W, H, 3), null, 'palette');
  assert.equal(decodeSameSizePng(await png({ progressive: true }), W, H, 3), null, 'interlaced');
  const withProfile = await sharp(rgb, { raw: { width: W, height: H, channels: 3 } })
    .withIccProfile('p3')
    .png()
    .toBuffer();
  assert.ok(withProfile.includes('iCCP'));
  assert.equal(decodeSameSizePng(withProfile, W, H, 3), null, 'an ICC profile (sharp converts by it)');
  const grey16 = await sharp(
    Uint16Array.from({ length: W * H }, (_, i) => i * 97),
    { raw: { width: W, height: H, channels: 1 } },
  )
    .toColourspace('grey16')
    .png()
    .toBuffer();
  assert.equal(decodeSameSizePng(grey16, W, H, 1), null, '16-bit');
  assert.equal(
    decodeSameSizePng(
      await sharp({ create: { width: W, height: H, channels: 3, background: 'red' } })
        .jpeg()
        .toBuffer(),
      W,
      H,
      3,
    ),
    null,
    'a JPEG',
  );
});
