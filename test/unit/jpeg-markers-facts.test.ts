// jpegFacts reads what decides the decoder from a JPEG's markers alone: the frame (baseline 0,
// progressive 2), the precision and components, an ICC profile, the EXIF orientation (1 without
// EXIF); anything that is not a JPEG read to its first scan is null.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jpegFacts } from '../../src/data/images/jpeg-markers.ts';
import { sharp } from '../helpers/photo-jpegs.ts';

const img = () => sharp({ create: { width: 16, height: 12, channels: 3, background: { r: 200, g: 30, b: 10 } } });

test('a baseline RGB JPEG: frame 0, 8 bits, 3 components, no ICC, upright', async () => {
  assert.deepEqual(jpegFacts(await img().jpeg().toBuffer()), { frame: 0, precision: 8, components: 3, icc: false, orientation: 1 });
});

test('progressive, grey, an ICC profile, an EXIF orientation', async () => {
  assert.equal(jpegFacts(await img().jpeg({ progressive: true }).toBuffer())?.frame, 2);
  assert.equal(jpegFacts(await img().toColourspace('b-w').jpeg().toBuffer())?.components, 1);
  assert.equal(jpegFacts(await img().withIccProfile('p3').jpeg().toBuffer())?.icc, true);
  assert.equal(jpegFacts(await img().withMetadata({ orientation: 6 }).jpeg().toBuffer())?.orientation, 6);
});

test('not a JPEG, or cut before its first scan: null', async () => {
  const jpeg = await img().jpeg().toBuffer();
  assert.equal(jpegFacts(await img().png().toBuffer()), null);
  assert.equal(jpegFacts(jpeg.subarray(0, 40)), null);
  assert.equal(jpegFacts(Buffer.from([0xff, 0xd8, 0xff])), null);
});
