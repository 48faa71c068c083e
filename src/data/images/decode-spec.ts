// What a decoding thread needs to make one split's rows: a plain object (it crosses to the
// piscina threads), the same for every thread.
import type { ImageAugment, ImageSource } from '../../shared/config/types.ts';

export interface DecodeSpec {
  height: number;
  width: number;
  channels: 1 | 3;
  resize: ImageSource['resize'];
  rescale: ImageSource['rescale'];
  normalize: ImageSource['normalize'];
  augment: ImageAugment | null; // training split only
  dtype: 'uint8' | 'float32'; // uint8: rescale none, no normalize (jitter then rounds)
  seed: number; // training.seed: each sample's augmentation is drawn from (seed, epoch, sample)
}

export function decodeSpec(src: ImageSource, augment: boolean, seed: number): DecodeSpec {
  return {
    height: src.size[0],
    width: src.size[1],
    channels: src.channels,
    resize: src.resize,
    rescale: src.rescale,
    normalize: src.normalize,
    augment: augment ? src.augment : null,
    dtype: src.rescale === 'none' && src.normalize === null ? 'uint8' : 'float32',
    seed,
  };
}

export function rowBytesOf(spec: DecodeSpec): number {
  return spec.height * spec.width * spec.channels * (spec.dtype === 'uint8' ? 1 : 4);
}
