// The JPEG path's crop and pad geometry against values worked out by hand, in the comments, from
// the definitions the decoder follows (never from jpeg-geometry.ts):
//   crop (sharp's fit: cover) resizes by the smaller of width / target width and height / target
//     height, rounded to whole pixels, and keeps the centre: its offset (resized - target + 1) >> 1,
//     sharp's CalculateCrop for gravity centre, which rounds an odd difference up;
//   pad (fit: contain) resizes by the larger one and writes the image at (target - resized) >> 1
//     in zeros, sharp's CalculateEmbedPosition, which rounds an odd difference down;
//   the DCT scale (1/2, 1/4, 1/8) is the largest the shrink reaches, halved where the shrink's
//     whole part equals it; the decoded size is ceil(size / scale) (libjpeg's TJSCALED), and
//     an axis's scale is decoded pixels per output pixel: decoded / (size / shrink).
// and the random resized crop's box against torchvision's RandomResizedCrop.get_params for known
// draws: up to 10 tries of (area fraction, log-ratio), each drawn as a float; a box that fits takes
// top = randint(0, H - h + 1) then left = randint(0, W - w + 1); after 10 misses, the centre crop at
// the nearest allowed ratio (w = W, h = round(W / min ratio) for a tall image; h = H,
// w = round(H * max ratio) for a wide one; else the whole image), its offsets floored.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resizedCropBox } from '../../src/data/images/augment-draws.ts';
import { jpegPlan, likeSharp } from '../../src/data/images/jpeg-geometry.ts';
import type { Rng } from '../../src/shared/rng.ts';

/** [srcStart, srcLen, fullLen, dstOff, dstCount, outOff, scale] of x and of y, and the DCT scale. */
function plan(w: number, h: number, width: number, height: number, resize: 'crop' | 'pad' | 'stretch') {
  const p = jpegPlan(w, h, { width, height, resize }, null);
  return { denom: p.denom, x: [...p.axes.slice(0, 7)], y: [...p.axes.slice(7, 14)] };
}

test('crop: the centre of the cover resize, an odd difference rounded up', () => {
  // 640x480 to 224: shrink 480/224 = 2.14 (whole part 2: decoded whole); 640/2.14 = 298.7 -> 299
  // wide; 299 - 224 = 75, odd: (75 + 1) >> 1 = 38 from the left.
  assert.deepEqual(plan(640, 480, 224, 224, 'crop'), {
    denom: 1,
    x: [0, 640, 299, 38, 224, 0, 640 / (640 / (480 / 224))],
    y: [0, 480, 224, 0, 224, 0, 480 / 224],
  });
  // 600x400: shrink 400/224 = 1.79; 600/1.79 = 336 wide, 112 over: 56 from the left.
  assert.deepEqual(plan(600, 400, 224, 224, 'crop').x.slice(0, 6), [0, 600, 336, 56, 224, 0]);
  // 375x500, portrait: the rows are cut, 500/1.674 = 298.7 -> 299 high, 38 from the top.
  assert.deepEqual(plan(375, 500, 224, 224, 'crop').y.slice(0, 6), [0, 500, 299, 38, 224, 0]);
  // 50x40 enlarged to 224: shrink 40/224 = 0.179; 50/0.179 = 280 wide, 56 over: 28 from the left.
  assert.deepEqual(plan(50, 40, 224, 224, 'crop').x.slice(0, 6), [0, 50, 280, 28, 224, 0]);
});

test('crop to a non-square size, decoded at 1/2: the scaled sizes and scales', () => {
  // 500x375 to 160 wide, 96 high: shrinks 3.125 and 3.906, crop takes 3.125 (reaches 2, whole
  // part 3: 1/2). Decoded 250 x ceil(187.5) = 188; resized 160 x 120, the rows 24 over: 12 down.
  // Scales: 250 decoded columns over 160, 188 decoded rows over 375/3.125 = 120.
  assert.deepEqual(plan(500, 375, 160, 96, 'crop'), { denom: 2, x: [0, 250, 160, 0, 160, 0, 250 / 160], y: [0, 188, 120, 12, 96, 0, 188 / 120] });
  // 2000x1000 to 224: shrink 4.46, whole part 4 = the factor reached: halved, 1/2. 448 wide, the
  // centre from (448 - 224 + 1) >> 1 = 112; 1000 decoded columns over 448.
  assert.deepEqual(plan(2000, 1000, 224, 224, 'crop'), { denom: 2, x: [0, 1000, 448, 112, 224, 0, 1000 / 448], y: [0, 500, 224, 0, 224, 0, 500 / 224] });
  // 896x896 to 224: shrink exactly 4: halved to 1/2 (sharp's guard), 448 decoded over 224.
  assert.deepEqual(plan(896, 896, 224, 224, 'crop').x, [0, 448, 224, 0, 224, 0, 2]);
});

test('pad: the contain resize at the centre of zeros, an odd difference rounded down', () => {
  // 500x333 to 224: shrink 500/224 = 2.23 (whole part 2: whole); 333/2.23 = 149.2 -> 149 high;
  // 224 - 149 = 75, odd: 75 >> 1 = 37 rows of zeros above.
  assert.deepEqual(plan(500, 333, 224, 224, 'pad'), {
    denom: 1,
    x: [0, 500, 224, 0, 224, 0, 500 / 224],
    y: [0, 333, 149, 0, 149, 37, 333 / (333 / (500 / 224))],
  });
  // 333x500, portrait: 149 wide, 37 columns of zeros on the left.
  assert.deepEqual(plan(333, 500, 224, 224, 'pad').x.slice(0, 6), [0, 333, 149, 0, 149, 37]);
  // 300x300 into 100 wide, 60 high: shrinks 3 and 5, pad takes 5 (reaches 4, whole part 5: 1/4).
  // Decoded 75 x 75, resized 60 x 60: (100 - 60) >> 1 = 20 columns of zeros on the left, none above.
  assert.deepEqual(plan(300, 300, 100, 60, 'pad'), { denom: 4, x: [0, 75, 60, 0, 60, 20, 75 / 60], y: [0, 75, 60, 0, 60, 0, 75 / 60] });
});

test('a DCT-scaled decode whose width or height is not a multiple of the scale is left to sharp', () => {
  // 1000x751 to 224 (stretch): the smaller shrink 751/224 = 3.35 decodes at 1/2; 751 rows are odd.
  const odd = jpegPlan(1000, 751, { width: 224, height: 224, resize: 'stretch' }, null);
  assert.equal(odd.denom, 2);
  assert.equal(likeSharp(odd, 1000, 751), false);
  const even = jpegPlan(1000, 750, { width: 224, height: 224, resize: 'stretch' }, null);
  assert.equal(likeSharp(even, 1000, 750), true);
});

test('stretch: each axis whole to the size, decoded at the scale the smaller shrink reaches', () => {
  // 1000x600 to 224: shrinks 4.46 and 2.68, the smaller 2.68 reaches 2 (whole part 2: halved, 1).
  assert.deepEqual(plan(1000, 600, 224, 224, 'stretch'), { denom: 1, x: [0, 1000, 224, 0, 224, 0, 1000 / 224], y: [0, 600, 224, 0, 224, 0, 600 / 224] });
  // 1000x900 to 100: shrinks 10 and 9 reach 8 (whole part 9): 1/8, 125 x ceil(112.5) = 113 decoded.
  assert.deepEqual(plan(1000, 900, 100, 100, 'stretch'), { denom: 8, x: [0, 125, 100, 0, 100, 0, 1.25], y: [0, 113, 100, 0, 100, 0, 1.13] });
});

/** An Rng that gives `floats` in order and answers below(n) with `picks` in order, recording each n. */
function scripted(floats: number[], picks: number[]) {
  const bounds: number[] = [];
  let f = 0;
  const rng: Rng = {
    uint32: () => assert.fail('uint32 is not drawn'),
    float: () => floats[f++] ?? assert.fail(`float ${f} drawn, only ${floats.length} scripted`),
    below: (n) => {
      bounds.push(n);
      return picks.shift() ?? assert.fail(`below(${n}) not scripted`);
    },
  };
  return { rng, bounds, floatsDrawn: () => f };
}

test("random resized crop: torchvision's box for known draws", () => {
  // 500x375, scale [0.08, 1], ratio [3/4, 4/3]: area 0.08 + 0.92 * 0.5 = 0.54 of 187500 = 101250;
  // log-ratio halfway between log(3/4) and log(4/3): ratio 1; w = h = round(318.2) = 318.
  // top from randint(0, 375 - 318 + 1 = 58), left from randint(0, 500 - 318 + 1 = 183).
  const a = scripted([0.5, 0.5], [57, 0]);
  assert.deepEqual(resizedCropBox(a.rng, 500, 375, [0.08, 1], [3 / 4, 4 / 3]), { top: 57, left: 0, width: 318, height: 318 });
  assert.deepEqual(a.bounds, [58, 183], 'top drawn first, each range inclusive of the last offset');
  // 100x50, scale [0.9, 1], ratio [1/4, 4]: area 0.9 * 5000 = 4500 each try. Try 1: log-ratio at
  // 0.25 of [-log 4, log 4] = -log 2: ratio 1/2, w = round(47.4) = 47, h = round(94.9) = 95 > 50:
  // missed. Try 2: at 0.75: ratio 2, w = 95, h = 47: fits; top of 50 - 47 + 1 = 4, left of 6.
  const b = scripted([0, 0.25, 0, 0.75], [3, 5]);
  assert.deepEqual(resizedCropBox(b.rng, 100, 50, [0.9, 1], [1 / 4, 4]), { top: 3, left: 5, width: 95, height: 47 });
  assert.deepEqual(b.bounds, [4, 6]);
  // A box of no width or no height is refused, as torchvision's 0 < w, 0 < h: 1x4 at 0.1 of its
  // area and ratio 1/2 (log-ratio at the low end of [log 1/2, log 16]) is w = round(0.45) = 0;
  // 4x1 at ratio ~16 is h = round(0.16) = 0. After 10 such tries: 1x4 is taller than 1/2 allows,
  // w = 1, h = round(1 / (1/2)) = 2 from row 1; 4x1 has an allowed ratio (4): the whole image.
  const thin = scripted(
    Array.from({ length: 20 }, (_, i) => (i % 2 ? 0 : 0.5)),
    [],
  );
  assert.deepEqual(resizedCropBox(thin.rng, 1, 4, [0.1, 0.1], [1 / 2, 16]), { top: 1, left: 0, width: 1, height: 2 });
  const flat = scripted(
    Array.from({ length: 20 }, (_, i) => (i % 2 ? 0.999999 : 0.5)),
    [],
  );
  assert.deepEqual(resizedCropBox(flat.rng, 4, 1, [0.1, 0.1], [1 / 2, 16]), { top: 0, left: 0, width: 4, height: 1 });
  // A box as wide and as high as the image fits: 100x50 at its whole area and its own ratio 2 is
  // w = round(sqrt(10000)) = 100, h = 50, at offsets from randint(0, 1) each.
  const c = scripted([0.3, 0.6], [0, 0]);
  assert.deepEqual(resizedCropBox(c.rng, 100, 50, [1, 1], [2, 2]), { top: 0, left: 0, width: 100, height: 50 });
  assert.deepEqual(c.bounds, [1, 1]);
});

test('random resized crop: after 10 misses, the centre crop at the nearest allowed ratio', () => {
  const draws = Array.from({ length: 20 }, (_, i) => (i * 0.37) % 1);
  // 60x200 (ratio 0.3), half its area: w >= sqrt(6000 * 3/4) = 67 > 60 at every allowed ratio.
  // Tall: w = 60, h = round(60 / (3/4)) = 80, top floor((200 - 80) / 2) = 60.
  const tall = scripted(draws, []);
  assert.deepEqual(resizedCropBox(tall.rng, 60, 200, [0.5, 0.5], [3 / 4, 4 / 3]), { top: 60, left: 0, width: 60, height: 80 });
  assert.equal(tall.floatsDrawn(), 20, '10 tries of 2 draws each, then no more');
  // 300x60 (ratio 5), half its area: h >= sqrt(9000 / (4/3)) = 82 > 60. Wide: h = 60,
  // w = round(60 * 4/3) = 80, left floor((300 - 80) / 2) = 110.
  assert.deepEqual(resizedCropBox(scripted(draws, []).rng, 300, 60, [0.5, 0.5], [3 / 4, 4 / 3]), { top: 0, left: 110, width: 80, height: 60 });
  // 10x10 at 1.5 times its area never fits (w, h >= round(10.6) = 11); its ratio 1 is allowed:
  // the whole image.
  assert.deepEqual(resizedCropBox(scripted(draws, []).rng, 10, 10, [1.5, 1.5], [3 / 4, 4 / 3]), { top: 0, left: 0, width: 10, height: 10 });
  // 61x200: w = 61, h = round(61 / (3/4)) = round(81.3) = 81; 119 rows over, odd: top floor(59.5) = 59.
  assert.deepEqual(resizedCropBox(scripted(draws, []).rng, 61, 200, [0.5, 0.5], [3 / 4, 4 / 3]), { top: 59, left: 0, width: 61, height: 81 });
});
