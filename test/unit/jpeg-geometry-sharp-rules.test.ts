// jpegPlan works a resize out as sharp does: crop by the smaller shrink, its centre cut rounded
// up; pad by the larger, centred rounded down; one scale for both axes; decoding at 1/2, 1/4, 1/8
// from the DCT from a shrink of 2, 4, 8, but not where the shrink's whole part equals the factor
// (sharp's guard: 2.1 decodes whole); a random resized crop's box read from the whole decode.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jpegPlan, likeSharp } from '../../src/data/images/jpeg-geometry.ts';

const size = (resize: 'stretch' | 'crop' | 'pad') => ({ width: 224, height: 224, resize });
const axes = (w: number, h: number, resize: 'stretch' | 'crop' | 'pad') => {
  const p = jpegPlan(w, h, size(resize), null);
  const a = [...p.axes];
  return { denom: p.denom, x: a.slice(0, 6), y: a.slice(7, 13), scales: [a[6], a[13]] };
};

test('crop and pad: one scale, sharp-rounded sizes and offsets', () => {
  // 500x375 covers 224 at 375/224: 299 wide, the centre 224 from (299 - 224 + 1) >> 1 = 38
  assert.deepEqual(axes(500, 375, 'crop'), { denom: 1, x: [0, 500, 299, 38, 224, 0], y: [0, 375, 224, 0, 224, 0], scales: [375 / 224, 375 / 224] });
  // 333x250 inside 224 at 333/224: 168 high, written from (224 - 168) >> 1 = 28
  const pad = axes(333, 250, 'pad');
  assert.deepEqual(
    [pad.x, pad.y],
    [
      [0, 333, 224, 0, 224, 0],
      [0, 250, 168, 0, 168, 28],
    ],
  );
  assert.equal(axes(500, 375, 'stretch').scales[1], 375 / 224);
});

test('shrink-on-load: 1/2 from 3x, whole at 2.1x (the guard), 1/4 at 5.4x with its scaled sizes', () => {
  assert.equal(axes(896, 672, 'crop').denom, 2);
  assert.equal(axes(640, 480, 'crop').denom, 1);
  assert.equal(axes(500, 375, 'pad').denom, 1); // pad's shrink is 2.23: whole part 2
  const big = axes(1801, 1200, 'crop');
  assert.equal(big.denom, 4);
  assert.deepEqual([big.x[1], big.y[1]], [451, 300]); // ceil(1801 / 4): libjpeg's scaled size
});

test('a box is stretched from the whole decode; one axis up and one down, or a partial DCT block, is left to sharp', () => {
  const p = jpegPlan(500, 375, size('crop'), { left: 10, top: 20, width: 300, height: 100 });
  assert.equal(p.denom, 1);
  assert.deepEqual([...p.axes], [10, 300, 224, 0, 224, 0, 300 / 224, 20, 100, 224, 0, 224, 0, 100 / 224]);
  assert.equal(likeSharp(p, 500, 375), false);
  assert.ok(likeSharp(jpegPlan(100, 80, size('crop'), null), 100, 80));
  assert.ok(likeSharp(jpegPlan(500, 375, size('crop'), null), 500, 375));
  assert.ok(likeSharp(jpegPlan(1000, 750, size('stretch'), null), 1000, 750), 'at 1/2, even sizes');
  assert.equal(likeSharp(jpegPlan(1001, 750, size('stretch'), null), 1001, 750), false, 'at 1/2, an odd width');
});
