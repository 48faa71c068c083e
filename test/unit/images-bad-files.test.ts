// A file that cannot be decoded fails the step that needs it with an E_DATA error naming the
// file and what the decoder said, never a hang: exit 2, an input error (a run that trained steps
// first turns it into exit 1 and keeps them: data-error-mid-run-same-exit). 0 bytes, a text file
// named .png, a truncated JPEG and PNG, a file gone since indexing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { loadImages, type ImageSplit } from '../../src/data/images/load-images.ts';
import type { ImageSource } from '../../src/config/types.ts';

const sharp = createRequire(import.meta.url)('sharp') as typeof import('sharp').default;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-bad-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
let split: ImageSplit;
after(() => split.pipeline.close());

const FILES = ['a/gone.png', 'a/good.png', 'a/text.png', 'a/truncated.jpg', 'a/truncated.png', 'a/zero.jpg'];
const EXPECT: Record<string, RegExp> = {
  'a/gone.png': /^cannot read .*\/a\/gone\.png: the file is gone \(it was there when the split was indexed\)$/,
  'a/text.png': /^cannot decode .*\/a\/text\.png \(19 bytes\): not an image the decoder reads \(sharp: unsupported image format\)$/,
  // Cut inside its quantisation tables: libjpeg warns of the premature end, then finds no image; which of
  // the two libvips reports first varies from run to run (both were seen), and both say it is cut short.
  'a/truncated.jpg': /^cannot decode .*\/a\/truncated\.jpg \(\d+ bytes\): sharp says: .*(premature end of JPEG image|JPEG datastream contains no image)$/,
  'a/truncated.png':
    /^cannot decode .*\/a\/truncated\.png \(\d+ bytes\): (damaged or truncated \(the decoder warned while reading it\)|sharp says: .*libpng read error)$/,
  'a/zero.jpg': /^cannot decode .*\/a\/zero\.jpg: the file is empty \(0 bytes\)$/,
};

test('set up: one good image and five bad ones', async () => {
  fs.mkdirSync(path.join(dir, 'a'));
  const img = () => sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 200, g: 30, b: 10 } } });
  const png = await img().png().toBuffer();
  const jpg = await img().jpeg().toBuffer();
  fs.writeFileSync(path.join(dir, 'a/good.png'), png);
  fs.writeFileSync(path.join(dir, 'a/gone.png'), png);
  fs.writeFileSync(path.join(dir, 'a/text.png'), 'hello, not an image');
  fs.writeFileSync(path.join(dir, 'a/truncated.jpg'), jpg.subarray(0, jpg.length >> 1));
  fs.writeFileSync(path.join(dir, 'a/truncated.png'), png.subarray(0, png.length >> 1));
  fs.writeFileSync(path.join(dir, 'a/zero.jpg'), '');
  const src: ImageSource = { type: 'images', dir, list: null, size: [8, 8], channels: 3, resize: 'stretch', rescale: 'unit', normalize: null, augment: null };
  split = loadImages(src, 'data.train', null, { threads: 2, prefetch: 2, seed: 0, localWorkers: 1 });
  fs.rmSync(path.join(dir, 'a/gone.png'));
});

test('each bad file fails its step naming the file and the decoder, exit 2', async () => {
  for (const [name, message] of Object.entries(EXPECT)) {
    const i = FILES.indexOf(name);
    const good = FILES.indexOf('a/good.png');
    const step = Uint32Array.from([good, i]);
    await assert.rejects(split.pipeline.ready(step, 0), (e: Error & { code?: string; exitCode?: number; hint?: string }) => {
      assert.equal(e.code, 'E_DATA', name);
      assert.match(e.message, message);
      assert.equal(e.exitCode, 2);
      // The pipeline's hint offers no checkpoint: after steps trained the run adds it (train-end).
      assert.match(e.hint ?? '', /then run again/);
      assert.doesNotMatch(e.hint ?? '', /--resume/);
      return true;
    });
    split.pipeline.release(step, 0);
  }
});
