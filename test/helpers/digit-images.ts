// Image folders for tests, made from the mnist package's digits: one folder per class (0..9),
// each digit a 28x28 grey PNG (lossless: it decodes to exactly the pixels written) or JPEG
// (for the decode path). Pixel k is round(255 * the package's value). Files are named by
// their zero-padded position, so the folder's index order (class, then name) is known: the
// helper returns the pixels and labels in that order, for an .npy of the same samples.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { loadMnist } from '../../src/data/mnist.ts';
import type { ImageSource } from '../../src/config/types.ts';

const sharp = createRequire(import.meta.url)('sharp') as typeof import('sharp').default;

export const SIDE = 28;

export interface DigitFolder {
  dir: string;
  count: number;
  pixels: Uint8Array; // [count, 28, 28] in the folder's index order
  labels: Int32Array; // [count]
  files: string[]; // in index order
}

/** Writes digits [offset, offset + count) of the mnist order into `dir`/<class>/<position>.<ext>. */
export async function writeDigitFolder(
  dir: string,
  count: number,
  opts: { offset?: number; format?: 'png' | 'jpeg'; channels?: 1 | 3 } = {},
): Promise<DigitFolder> {
  const { features, labels } = loadMnist(opts.offset ?? 0, count, 'index', 'test');
  const ext = opts.format === 'jpeg' ? 'jpg' : 'png';
  const items: Array<{ file: string; label: number; pixels: Uint8Array }> = [];
  for (let i = 0; i < count; i++) {
    const label = (labels.data as Int32Array)[i]!;
    const px = Uint8Array.from((features.data as Float32Array).subarray(i * SIDE * SIDE, (i + 1) * SIDE * SIDE), (v) => Math.round(v * 255));
    const file = path.join(dir, String(label), `${String(i).padStart(5, '0')}.${ext}`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const channels = opts.channels ?? 1;
    const raw = channels === 1 ? px : Uint8Array.from({ length: px.length * 3 }, (_, j) => px[Math.floor(j / 3)]!);
    const rawImg = sharp(Buffer.from(raw), { raw: { width: SIDE, height: SIDE, channels } });
    const img = channels === 1 ? rawImg.toColourspace('b-w') : rawImg; // a grey PNG (sharp writes 1 raw channel as RGB otherwise)
    await (ext === 'png' ? img.png() : img.jpeg({ quality: 90 })).toFile(file);
    items.push({ file, label, pixels: px });
  }
  items.sort((a, b) => a.label - b.label || (a.file < b.file ? -1 : 1));
  const pixels = new Uint8Array(count * SIDE * SIDE);
  items.forEach((it, i) => pixels.set(it.pixels, i * SIDE * SIDE));
  return { dir, count, pixels, labels: Int32Array.from(items, (it) => it.label), files: items.map((it) => it.file) };
}

/** A tiny digit classifier module (flatten, dense 10 softmax, or a small CNN): `<dir>/<name>.mjs`. */
export function writeDigitModel(dir: string, kind: 'dense' | 'cnn' = 'dense', channels: 1 | 3 = 1): string {
  const file = path.join(dir, `digits-${kind}.mjs`);
  const layers =
    kind === 'dense'
      ? `tf.layers.flatten({ inputShape: [28, 28, ${channels}] }), tf.layers.dense({ units: 10, activation: 'softmax' })`
      : `tf.layers.conv2d({ inputShape: [28, 28, ${channels}], filters: 4, kernelSize: 3, strides: 2, activation: 'relu' }), tf.layers.flatten(), tf.layers.dense({ units: 10, activation: 'softmax' })`;
  fs.writeFileSync(file, `export default (tf) => tf.sequential({ layers: [${layers}] });\n`);
  return file;
}

/** A validated-form images source of the 28x28 grey digits in `dir` (rescale to [0, 1], no augmentation), with `over` set. */
export function digitSource(dir: string, over: Partial<ImageSource> = {}): ImageSource {
  return { type: 'images', dir, list: null, size: [SIDE, SIDE], channels: 1, resize: 'stretch', rescale: 'unit', normalize: null, augment: null, ...over };
}
