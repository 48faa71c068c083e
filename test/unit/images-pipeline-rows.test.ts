// The image pipeline makes the rows a step asks for, in the step's order, as the exact pixels of
// the PNG digits; gather copies only rows made ready; released slots are reused, so the row
// buffers follow the rows in flight, not the dataset; eval rows (no augmentation) are the same
// whatever the epoch they are asked for under.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { loadImages, type ImageSplit } from '../../src/data/images/load-images.ts';
import { digitSource, writeDigitFolder, type DigitFolder } from '../helpers/digit-images.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-pipeline-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
const PX = 28 * 28;
const src = digitSource(dir, { rescale: 'none' });
let digits: DigitFolder;
let split: ImageSplit;
after(() => split.pipeline.close());

test('set up: 120 PNG digits, 2 threads', async () => {
  digits = await writeDigitFolder(dir, 120);
  split = loadImages(src, 'data.eval', null, { threads: 2, prefetch: 2, seed: 0, localWorkers: 1 });
  assert.deepEqual(split.features.shape, [120, 28, 28, 1]);
  assert.deepEqual([...(split.labels.toArray().data as Int32Array)], [...digits.labels]);
});

test('rows come back in the asked order as the exact pixels, and only once ready', async () => {
  const idx = Uint32Array.from([119, 3, 3 + 1, 57, 0, 88, 2]);
  const out = new Uint8Array(idx.length * PX);
  assert.throws(
    () => split.features.gather(idx, out, 0, 0),
    (e: Error & { code?: string }) => e.code === 'E_INTERNAL',
  );
  split.pipeline.prefetch(idx, 0);
  await split.pipeline.ready(idx, 0);
  assert.equal(split.pipeline.isReady(idx, 0), true);
  assert.equal(split.features.gather(idx, out, 0, 0), idx.length * PX);
  idx.forEach((r, k) => assert.deepEqual(out.subarray(k * PX, (k + 1) * PX), digits.pixels.subarray(r * PX, (r + 1) * PX), `row ${k} (sample ${r})`));
  split.pipeline.release(idx, 0);
  assert.equal(split.pipeline.isReady(idx, 0), false);
});

test('slots are reused: 30 steps of 16 rows, 3 in flight, never more than a few chunks of slots', async () => {
  const steps = Array.from({ length: 30 }, (_, s) => Uint32Array.from({ length: 16 }, (_, k) => (s * 16 + k) % 120));
  const out = new Uint8Array(16 * PX);
  for (let s = 0; s < steps.length; s++) {
    for (let a = 1; a <= 2 && s + a < steps.length; a++) split.pipeline.prefetch(steps[s + a]!, 1);
    await split.pipeline.ready(steps[s]!, 1);
    split.features.gather(steps[s]!, out, 0, 1);
    assert.deepEqual(out.subarray(5 * PX, 6 * PX), digits.pixels.subarray(steps[s]![5]! * PX, (steps[s]![5]! + 1) * PX));
    split.pipeline.release(steps[s]!, 1);
  }
  await new Promise((r) => setTimeout(r, 10));
  assert.ok(split.pipeline.slotCapacity <= 128, `${split.pipeline.slotCapacity} slots for 48 rows in flight`);
});
