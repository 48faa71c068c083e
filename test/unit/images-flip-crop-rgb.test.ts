// The padded crop then the flip of an RGB (and a grey) row, for offsets on every side and with
// and without the flip, against plain tfjs: pad by p zeros, slice at (p + dy, p + dx), reverse
// the width axis. (images-augment-reference checks the draws; this the pixels of each case.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Draws } from '../../src/data/images/augment-draws.ts';
import type { DecodeSpec } from '../../src/data/images/decode-spec.ts';
import { placeRow, valueTable } from '../../src/data/images/place-row.ts';
import { loadTf } from '../helpers/train-fixture.ts';

const [H, W, P] = [7, 9, 3];

test('every offset in [-3, 3] x [-3, 3], flipped or not, 3 channels and 1: the tfjs reference', async () => {
  const tf = await loadTf();
  for (const C of [3, 1] as const) {
    const px = Uint8Array.from({ length: H * W * C }, (_, i) => (i * 31 + 7) % 256);
    const spec: DecodeSpec = { height: H, width: W, channels: C, resize: 'stretch', rescale: 'none', normalize: null, augment: null, dtype: 'uint8', seed: 0 };
    const img = tf.tensor3d(px, [H, W, C], 'int32');
    for (let dy = -P; dy <= P; dy++) {
      for (let dx = -P; dx <= P; dx++) {
        for (const flip of [false, true]) {
          const d: Draws = { box: null, dy, dx, flip, brightness: 1, contrast: 1 };
          const out = new Uint8Array(px.length).fill(99);
          placeRow(px, spec, d, valueTable(spec), out);
          const ref = tf.tidy(() => {
            const cut = tf.slice(
              tf.pad(img, [
                [P, P],
                [P, P],
                [0, 0],
              ]),
              [P + dy, P + dx, 0],
              [H, W, C],
            );
            return (flip ? tf.reverse(cut, 1) : cut).dataSync();
          });
          assert.deepEqual([...out], [...ref], `C ${C}, dy ${dy}, dx ${dx}, flip ${flip}`);
        }
      }
    }
  }
});
