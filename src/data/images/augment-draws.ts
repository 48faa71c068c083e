// The random numbers of one sample's augmentation, drawn from its own stream (seed, epoch,
// sample index): the same bits whatever the number of workers, threads or machines, on a rerun,
// and on a resume in the middle of an epoch. Drawn in this order, each only when configured:
// the random resized crop's box (torchvision's RandomResizedCrop.get_params: up to 10 tries,
// then the centre crop), the padded crop's offsets, the flip, the brightness factor, the
// contrast factor.
import type { ImageAugment } from '../../config/types.ts';
import { mulberry32, streamState, type Rng } from '../../shared/rng.ts';

const TAG_AUGMENT = 0x41554731; // 'AUG1': never reuse, never change

export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface Draws {
  box: Box | null; // random resized crop: the region of the decoded image, before the resize
  dy: number; // padded crop: the row offset in [0, 2 * padding] into the padded image
  dx: number;
  flip: boolean;
  brightness: number; // factors, 1 when off
  contrast: number;
}

export function augmentRng(seed: number, epoch: number, sample: number): Rng {
  return mulberry32(streamState(TAG_AUGMENT, seed, epoch, sample));
}

const uniform = (rng: Rng, lo: number, hi: number) => lo + (hi - lo) * rng.float();

/** The draws for an image of `width` x `height` (the size before the resize: only the resized crop reads it). */
export function drawAugment(a: ImageAugment, rng: Rng, width: number, height: number): Draws {
  const box = a.randomResizedCrop ? resizedCropBox(rng, width, height, a.randomResizedCrop.scale, a.randomResizedCrop.ratio) : null;
  const pad = a.crop?.padding ?? 0;
  const dy = a.crop ? rng.below(2 * pad + 1) : pad;
  const dx = a.crop ? rng.below(2 * pad + 1) : pad;
  const flip = a.flip === 'horizontal' ? rng.float() < 0.5 : false;
  const factor = (j: number | null) => (j === null ? 1 : uniform(rng, Math.max(0, 1 - j), 1 + j));
  const brightness = factor(a.brightness);
  const contrast = factor(a.contrast);
  return { box, dy: dy - pad, dx: dx - pad, flip, brightness, contrast };
}

/** torchvision's RandomResizedCrop.get_params. */
export function resizedCropBox(rng: Rng, width: number, height: number, scale: [number, number], ratio: [number, number]): Box {
  const area = width * height;
  const [lr0, lr1] = [Math.log(ratio[0]), Math.log(ratio[1])];
  for (let t = 0; t < 10; t++) {
    const target = area * uniform(rng, scale[0], scale[1]);
    const aspect = Math.exp(uniform(rng, lr0, lr1));
    const w = Math.round(Math.sqrt(target * aspect));
    const h = Math.round(Math.sqrt(target / aspect));
    if (w > 0 && w <= width && h > 0 && h <= height) return { top: rng.below(height - h + 1), left: rng.below(width - w + 1), width: w, height: h };
  }
  const inRatio = width / height;
  let w = width;
  let h = height;
  if (inRatio < ratio[0]) h = Math.round(w / ratio[0]);
  else if (inRatio > ratio[1]) w = Math.round(h * ratio[1]);
  return { top: Math.floor((height - h) / 2), left: Math.floor((width - w) / 2), width: w, height: h };
}
