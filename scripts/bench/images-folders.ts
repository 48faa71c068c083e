// The image folders of the decode benchmark, written once into os.tmpdir() (kept between runs):
// noisy 500x375 JPEGs (quality 90), as ImageNet's photos are, 2000x1500 ones, as a camera's
// are, and noisy 32x32 PNGs, as CIFAR is; four class folders each. Noise keeps the files from
// compressing to nothing.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { mulberry32 } from '../../src/shared/rng.ts';

const sharp = createRequire(import.meta.url)('sharp') as typeof import('sharp').default;

export interface BenchFolder {
  name: string;
  dir: string;
  count: number;
  width: number;
  height: number;
}

const SIZES = { jpeg: [500, 375], 'jpeg-large': [2000, 1500], png: [32, 32] } as const;

/**
 * The work the image benchmarks time, as an images source's decoding keys: the shorter side to
 * `size`, a centre crop of size x size, a random horizontal flip, uint8 rows (torchvision's
 * Resize, CenterCrop, RandomHorizontalFlip, PILToTensor).
 */
export function benchDecoding(size: number) {
  return {
    size: [size, size] as [number, number],
    channels: 3 as const,
    resize: 'crop' as const,
    rescale: 'none' as const,
    normalize: null,
    augment: { flip: 'horizontal' as const, crop: null, randomResizedCrop: null, brightness: null, contrast: null },
  };
}

export async function benchFolder(kind: keyof typeof SIZES, count: number): Promise<BenchFolder> {
  const [width, height] = SIZES[kind];
  const name = `${count} ${kind === 'png' ? 'PNGs' : 'JPEGs'} ${width}x${height}${kind === 'png' ? '' : ' q90'}`;
  const dir = path.join(os.tmpdir(), `mgpu-bench-images-${kind}-${count}`);
  const done = path.join(dir, '.complete');
  if (fs.existsSync(done)) return { name, dir, count, width, height };
  const rng = mulberry32(kind === 'jpeg' ? 1 : 2);
  for (let i = 0; i < count; i++) {
    const px = new Uint8Array(width * height * 3);
    for (let p = 0; p < px.length; p++)
      px[p] = Math.max(0, Math.min(255, ((p % (width * 3)) + Math.floor(p / (width * 3)) + i * 13) % 256) + (rng.float() - 0.5) * 80);
    const file = path.join(dir, `c${i % 4}`, `${String(i).padStart(5, '0')}.${kind === 'png' ? 'png' : 'jpg'}`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const img = sharp(px, { raw: { width, height, channels: 3 } });
    await (kind === 'png' ? img.png() : img.jpeg({ quality: 90 })).toFile(file);
  }
  fs.writeFileSync(done, '');
  return { name, dir, count, width, height };
}
