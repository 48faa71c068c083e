// The native JPEG decoder makes the rows sharp makes, to within the resamplers' rounding: photo-like
// JPEGs of several sizes and aspects (shrunk by 1.67, as ImageNet's to 224; some decoded at 1/2
// and 1/4 from the DCT, as sharp's shrink-on-load does, one just not; some enlarged), each resize
// mode, grey to 1 and 3 channels, and random resized crop boxes larger and smaller than the size:
// the mean difference under 0.3 levels of 255 and none over 10, where a pixel's shift, a tenth of
// one across the image, the DCT scaling where sharp decodes whole, or PIL's placing of enlarged
// pixels make the stripes differ by levels to tens.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jpegAddon } from '../../src/data/images/jpeg-native.ts';
import type { ImageAugment } from '../../src/config/types.ts';
import { nativeSkip } from '../helpers/native.ts';
import { decodedBy, difference, photoJpeg, uint8Spec } from '../helpers/photo-jpegs.ts';

const skip = nativeSkip(jpegAddon().reason ?? false);
const rrc = (scale: [number, number], ratio: [number, number]): ImageAugment => ({
  flip: null,
  crop: null,
  randomResizedCrop: { scale, ratio },
  brightness: null,
  contrast: null,
});
const RRC = rrc([0.08, 1], [3 / 4, 4 / 3]);
const SMALL_BOXES = rrc([0.05, 0.1], [0.9, 1.1]); // 97-137 pixels a side: enlarged

const CASES: Array<[number, number, 1 | 3, 'stretch' | 'crop' | 'pad', ImageAugment | null, boolean?]> = [
  // width, height, channels, resize, augment, a grey JPEG
  [500, 375, 3, 'crop', null],
  [375, 500, 3, 'crop', null],
  [500, 375, 3, 'stretch', null],
  [500, 375, 3, 'pad', null],
  [333, 250, 3, 'pad', null],
  [640, 480, 3, 'crop', null], // shrink 2.1: decoded whole (sharp's guard)
  [896, 672, 3, 'crop', null], // shrink 3: decoded at 1/2
  [1000, 750, 3, 'stretch', null], // shrinks 4.5 and 3.3: at 1/2
  [700, 500, 3, 'pad', null], // shrink 3.1: at 1/2
  [1800, 1200, 3, 'crop', null], // shrink 5.4: at 1/4
  [100, 80, 3, 'crop', null], // enlarged
  [150, 150, 3, 'stretch', null], // enlarged
  [500, 375, 3, 'crop', RRC],
  [500, 375, 3, 'crop', SMALL_BOXES],
  [500, 375, 1, 'crop', null, true],
  [500, 375, 3, 'crop', null, true],
];

for (const [w, h, channels, resize, augment, grey] of CASES) {
  const boxes = augment === SMALL_BOXES ? ', random resized crop (small boxes)' : augment ? ', random resized crop' : '';
  const what = `${w}x${h}${grey ? ' grey' : ''} to 224x224x${channels}, ${resize}${boxes}`;
  test(`native = sharp within rounding: ${what}`, { skip }, async () => {
    const jpeg = await photoJpeg(w, h, { grey });
    const spec = uint8Spec(224, channels, resize, augment);
    for (const sample of augment ? [0, 1, 2, 3] : [0]) {
      const d = difference(await decodedBy(true, jpeg, spec, sample), await decodedBy(false, jpeg, spec, sample));
      assert.ok(d.mean < 0.3 && d.max <= 10 && d.max > 0, `sample ${sample}: mean difference ${d.mean.toFixed(3)} (max ${d.max}; 0: sharp decoded it)`);
      if (process.env.MGPU_JPEG_PRINT) console.log(what, sample, d);
    }
  });
}
