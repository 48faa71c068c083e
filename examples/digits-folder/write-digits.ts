// Writes the mnist package's 10,000 digits as grey 28x28 PNG files in class folders, the layout
// of a photo dataset: digits/train/<0-9>/<n>.png (the first 9,000 of the package's fixed order)
// and digits/val/<0-9>/<n>.png (the last 1,000). Run it once, then train from the folders:
//   node --import tsx examples/digits-folder/write-digits.ts [--train 9000] [--val 1000] [--out <dir>]
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadMnist } from '../../src/data/mnist.ts';

const { values } = parseArgs({ options: { train: { type: 'string', default: '9000' }, val: { type: 'string', default: '1000' }, out: { type: 'string' } } });
const sharp = createRequire(import.meta.url)('sharp') as typeof import('sharp').default;
const root = values.out ? path.resolve(values.out) : path.join(path.dirname(fileURLToPath(import.meta.url)), 'digits');

async function write(split: string, offset: number, count: number): Promise<void> {
  const { features, labels } = loadMnist(offset, count, 'index', split);
  const px = features.data as Float32Array;
  for (let i = 0; i < count; i++) {
    const file = path.join(root, split, String((labels.data as Int32Array)[i]), `${String(offset + i).padStart(5, '0')}.png`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const grey = Uint8Array.from(px.subarray(i * 784, (i + 1) * 784), (v) => Math.round(v * 255));
    await sharp(grey, { raw: { width: 28, height: 28, channels: 1 } })
      .toColourspace('b-w')
      .png()
      .toFile(file);
  }
  console.log(`${count} digits -> ${path.join(root, split)}/<class>/`);
}

const trainCount = Number(values.train);
fs.rmSync(root, { recursive: true, force: true });
await write('train', 0, trainCount);
await write('val', trainCount, Number(values.val));
