// The JPEG path: digits written as JPEGs (quality 90) decode, through the pipeline, to rows
// close to the pixels written (JPEG is lossy: mean error under 2 of 255), grey files to 1
// channel and RGB files to 3, each row the digit it was (its nearest PNG pixels).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { range } from '../../src/data/columns.ts';
import { loadImages } from '../../src/data/images/load-images.ts';
import { digitSource, writeDigitFolder } from '../helpers/digit-images.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-jpeg-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));

for (const channels of [1, 3] as const) {
  test(`JPEG digits with ${channels} channel(s) decode close to their pixels`, async () => {
    const digits = await writeDigitFolder(path.join(dir, `c${channels}`), 30, { format: 'jpeg', channels });
    assert.ok(digits.files.every((f) => f.endsWith('.jpg')));
    const split = loadImages(digitSource(digits.dir, { rescale: 'none', channels }), 'data.eval', null, { threads: 1, prefetch: 1, seed: 0, localWorkers: 1 });
    try {
      const idx = range(30);
      await split.pipeline.ready(idx, 0);
      const out = new Uint8Array(30 * 784 * channels);
      split.features.gather(idx, out, 0, 0);
      let sum = 0;
      for (let i = 0; i < out.length; i++) sum += Math.abs(out[i]! - digits.pixels[Math.floor(i / channels)]!);
      const mean = sum / out.length;
      assert.ok(mean < 2, `mean error ${mean.toFixed(2)} of 255`);
      assert.ok(mean > 0, 'lossy: not the exact pixels (the JPEG path ran, not the PNG one)');
    } finally {
      await split.pipeline.close();
    }
  });
}
