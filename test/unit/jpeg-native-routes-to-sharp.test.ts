// Which JPEGs the native decoder takes: baseline and progressive photos, grey ones, a 1-pixel
// image; and which it leaves to sharp, which still decodes them: CMYK, an ICC profile (sharp
// converts it to sRGB), an EXIF-turned photo under `orientation: exif` (the same photo is the
// native decoder's when the orientation is `stored`), colour to 1 channel, an image one axis
// enlarges and the other shrinks, a DCT-scaled one of a size not a multiple of the scale.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeJpegNative } from '../../src/data/images/decode-jpeg-native.ts';
import { jpegAddon } from '../../src/data/images/jpeg-native.ts';
import { valueTable } from '../../src/data/images/place-row.ts';
import { nativeSkip } from '../helpers/native.ts';
import { decodedBy, difference, photoJpeg, photoPixels, sharp, uint8Spec } from '../helpers/photo-jpegs.ts';

const skip = nativeSkip(jpegAddon().reason ?? false);
const photo = (w = 300, h = 200) => sharp(Buffer.from(photoPixels(w, h)), { raw: { width: w, height: h, channels: 3 } });

/** `jpeg` with an EXIF block holding only `orientation` (sharp's withMetadata would add an ICC profile too). */
function withOrientation(jpeg: Buffer, orientation: number): Buffer {
  const tiff = Buffer.from([0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, orientation, 0, 0, 0, 0, 0, 0, 0]);
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const app1 = Buffer.concat([Buffer.from([0xff, 0xe1, (body.length + 2) >> 8, (body.length + 2) & 255]), body]);
  return Buffer.concat([jpeg.subarray(0, 2), app1, jpeg.subarray(2)]);
}

function takes(bytes: Buffer, spec = uint8Spec(64, 3, 'crop')): boolean {
  return decodeJpegNative(bytes, spec, 0, 0, valueTable(spec), new Uint8Array(64 * 64 * spec.channels));
}

test('taken: baseline, progressive, grey, a 1-pixel image', { skip }, async () => {
  assert.ok(takes(await photoJpeg(300, 200)));
  assert.ok(takes(await photo().jpeg({ progressive: true }).toBuffer()));
  assert.ok(takes(await photoJpeg(300, 200, { grey: true }), uint8Spec(64, 1, 'crop')));
  const dot = await sharp({ create: { width: 1, height: 1, channels: 3, background: { r: 250, g: 120, b: 5 } } })
    .jpeg()
    .toBuffer();
  const spec = uint8Spec(1, 3, 'stretch');
  const row = new Uint8Array(3);
  assert.ok(decodeJpegNative(dot, spec, 0, 0, valueTable(spec), row));
  assert.deepEqual([...row], [...(await decodedBy(false, dot, spec))]);
});

test('left to sharp: CMYK, ICC, EXIF-turned under orientation exif, colour to grey, enlarged one way only, a partial DCT block', { skip }, async () => {
  const turned = withOrientation(await photoJpeg(300, 200), 6);
  assert.equal((await sharp(turned).metadata()).orientation, 6, 'the EXIF block reads');
  const exif = { ...uint8Spec(64, 3, 'crop'), orientation: 'exif' as const };
  const cases: Array<[string, Buffer, ReturnType<typeof uint8Spec>]> = [
    ['CMYK', await photo().toColourspace('cmyk').jpeg().toBuffer(), uint8Spec(64, 3, 'crop')],
    ['ICC', await photo().withIccProfile('p3').jpeg().toBuffer(), uint8Spec(64, 3, 'crop')],
    ['EXIF 6', turned, exif],
    ['colour to grey', await photoJpeg(300, 200), uint8Spec(64, 1, 'crop')],
    ['wider, shorter', await photoJpeg(100, 40), uint8Spec(64, 3, 'stretch')],
    ['at 1/2, an odd height', await photoJpeg(300, 201), uint8Spec(64, 3, 'crop')],
  ];
  for (const [what, bytes, spec] of cases) {
    assert.equal(takes(bytes, spec), false, what);
    const d = difference(await decodedBy(true, bytes, spec), await decodedBy(false, bytes, spec));
    assert.equal(d.max, 0, `${what}: sharp's row`);
  }
  assert.ok(takes(turned), 'the turned photo, stored as it is: native');
});
