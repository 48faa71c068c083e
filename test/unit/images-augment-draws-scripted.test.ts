// One sample's augmentation draws for known random numbers, worked by hand from torchvision's
// definitions: RandomCrop(size, padding=p) picks the window's corner in [0, 2p] of the padded
// image (randint(0, 2p + 1)), an offset of corner - p from the unpadded one, rows first;
// RandomHorizontalFlip flips when a float is below 0.5; ColorJitter's factor is uniform in
// [max(0, 1 - j), 1 + j]. Drawn in the order augment-draws.ts documents (box, rows, columns,
// flip, brightness, contrast), each only when configured; nothing configured draws nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drawAugment } from '../../src/data/images/augment-draws.ts';
import type { ImageAugment } from '../../src/config/types.ts';
import type { Rng } from '../../src/shared/rng.ts';

/** `value` when it is `expected` to float64 rounding (1e-12), else itself (and the deepEqual fails). */
const near = (value: number, expected: number) => (Math.abs(value - expected) < 1e-12 ? expected : value);

const none: ImageAugment = { flip: null, crop: null, randomResizedCrop: null, brightness: null, contrast: null };

function scripted(floats: number[], picks: number[]) {
  const asked: string[] = [];
  const rng: Rng = {
    uint32: () => assert.fail('uint32 is not drawn'),
    float: () => {
      asked.push('float');
      return floats.shift() ?? assert.fail('a float drawn that was not scripted');
    },
    below: (n) => {
      asked.push(`below ${n}`);
      return picks.shift() ?? assert.fail(`below(${n}) not scripted`);
    },
  };
  return { rng, asked };
}

test('padded crop 4, flip, brightness 0.4, contrast 1.5: offsets corner - 4, the factors in their ranges', () => {
  const a: ImageAugment = { ...none, crop: { padding: 4 }, flip: 'horizontal', brightness: 0.4, contrast: 1.5 };
  // Corners 0 (rows) and 8 (columns) of [0, 8]: offsets -4 and +4. Flip at 0.49 < 0.5. Brightness
  // 0.6 + 0.8 * 0.25 = 0.8; contrast from max(0, -0.5) = 0: 0 + 2.5 * 0.5 = 1.25.
  const s = scripted([0.49, 0.25, 0.5], [0, 8]);
  const d0 = drawAugment(a, s.rng, 32, 32);
  assert.deepEqual({ ...d0, brightness: near(d0.brightness, 0.8) }, { box: null, dy: -4, dx: 4, flip: true, brightness: 0.8, contrast: 1.25 });
  assert.deepEqual(s.asked, ['below 9', 'below 9', 'float', 'float', 'float']);
  // A float of exactly 0.5 does not flip; corners 4 and 5: offsets 0 and +1.
  const t = scripted([0.5, 0, 0.999], [4, 5]);
  const d = drawAugment(a, t.rng, 32, 32);
  assert.deepEqual([d.dy, d.dx, d.flip], [0, 1, false]);
  assert.equal(d.brightness, 0.6);
  assert.equal(near(d.contrast, 2.4975), 2.4975);
});

test('nothing configured: no draw, no offset, no flip, factors 1', () => {
  const s = scripted([], []);
  assert.deepEqual(drawAugment(none, s.rng, 32, 32), { box: null, dy: 0, dx: 0, flip: false, brightness: 1, contrast: 1 });
  assert.deepEqual(s.asked, []);
  // Only contrast: one float, the factor from it; brightness stays 1.
  const c = scripted([0.75], []);
  const only = drawAugment({ ...none, contrast: 0.2 }, c.rng, 32, 32);
  assert.deepEqual({ ...only, contrast: near(only.contrast, 1.1) }, { box: null, dy: 0, dx: 0, flip: false, brightness: 1, contrast: 1.1 }); // 0.8 + 0.4 * 0.75
});
