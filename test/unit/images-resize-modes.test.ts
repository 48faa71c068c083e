// resize: 'stretch' scales each side to the size (the aspect ratio changes), 'crop' scales the
// shorter side to fit and cuts the centre (Keras's crop_to_aspect_ratio), 'pad' scales the
// longer side to fit and fills the rest with 0, the image centred (pad_to_aspect_ratio).
// The image: 8 wide, 4 high, column x holding 30 * x in every row, so each mode's geometry is
// exact (no interpolation across a column).
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
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-resize-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, 'columns.png');

async function decode(resize: DecodeSpec['resize'], height: number, width: number): Promise<number[][]> {
  const s: DecodeSpec = { height, width, channels: 1, resize, rescale: 'none', normalize: null, augment: null, dtype: 'uint8', seed: 0 };
  const out = new Uint8Array(height * width);
  await decodeInto(sharp, file, s, 0, 0, valueTable(s), out);
  return Array.from({ length: height }, (_, y) => [...out.subarray(y * width, (y + 1) * width)]);
}

test('stretch, crop and pad place the columns where each mode says', async () => {
  await sharp(
    Uint8Array.from({ length: 32 }, (_, i) => (i % 8) * 30),
    { raw: { width: 8, height: 4, channels: 1 } },
  )
    .png()
    .toFile(file);
  const row = [0, 30, 60, 90, 120, 150, 180, 210];
  assert.deepEqual(await decode('stretch', 2, 8), Array(2).fill(row)); // 4 rows to 2: the aspect ratio changes
  assert.deepEqual(await decode('crop', 4, 4), Array(4).fill([60, 90, 120, 150]));
  const zeros = Array(8).fill(0);
  assert.deepEqual(await decode('pad', 8, 8), [zeros, zeros, row, row, row, row, zeros, zeros]);
});
