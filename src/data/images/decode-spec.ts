// What a decoding thread needs to make one split's rows: a plain object (it crosses to the
// piscina threads), the same for every thread.
import type { ImageAugment, ImageSource } from '../../config/types.ts';

export interface DecodeSpec {
  height: number;
  width: number;
  channels: 1 | 3;
  resize: ImageSource['resize'];
  rescale: ImageSource['rescale'];
  normalize: ImageSource['normalize'];
  augment: ImageAugment | null; // training split only
  orientation?: 'stored' | 'exif'; // exif: turned upright by the file's EXIF orientation first; default stored
  dtype: 'uint8' | 'float32'; // uint8: rescale none, no normalize (jitter then rounds)
  seed: number; // training.seed: each sample's augmentation is drawn from (seed, epoch, sample)
  badFileHint?: string; // the hint of a file that does not decode (what to do next differs for train, eval and predict); default a training run's
}

/** What reads the rows: a training run (its data.eval too), the eval command, or predict. */
export type ImageUse = 'train' | 'eval' | 'predict';

export const BAD_FILE_HINTS: Record<ImageUse, string> = {
  // No word of a checkpoint: a failure at the first step leaves none; after steps trained, the
  // run's own hint says where the checkpoint is and how to continue (train-end.ts failedRun).
  train: 'replace or remove that file, then run again',
  eval: 'replace or remove that file, then run eval again',
  predict: 'replace or remove that file (or leave it out of --input), then run predict again; no output was written',
};

export function decodeSpec(src: Omit<ImageSource, 'type' | 'dir' | 'list'>, augment: boolean, seed: number, use: ImageUse = 'train'): DecodeSpec {
  return {
    height: src.size[0],
    width: src.size[1],
    channels: src.channels,
    resize: src.resize,
    rescale: src.rescale,
    normalize: src.normalize,
    augment: augment ? src.augment : null,
    orientation: src.orientation ?? 'stored',
    dtype: src.rescale === 'none' && src.normalize === null ? 'uint8' : 'float32',
    seed,
    badFileHint: BAD_FILE_HINTS[use],
  };
}

export function rowBytesOf(spec: DecodeSpec): number {
  return spec.height * spec.width * spec.channels * (spec.dtype === 'uint8' ? 1 : 4);
}

/** For the header: e.g. "resize crop, EXIF orientation applied, augment flip horizontal, crop padding 4" or "resize stretch, no augmentation". */
export function describeDecoding(spec: DecodeSpec): string {
  const a = spec.augment;
  const parts = a
    ? [
        a.flip ? `flip ${a.flip}` : '',
        a.crop ? `crop padding ${a.crop.padding}` : '',
        a.randomResizedCrop ? `randomResizedCrop scale [${a.randomResizedCrop.scale.join(', ')}] ratio [${a.randomResizedCrop.ratio.join(', ')}]` : '',
        a.brightness !== null ? `brightness ${a.brightness}` : '',
        a.contrast !== null ? `contrast ${a.contrast}` : '',
      ].filter(Boolean)
    : [];
  const orientation = spec.orientation === 'exif' ? ', EXIF orientation applied' : '';
  return `resize ${spec.resize}${orientation}, ${parts.length ? `augment ${parts.join(', ')}` : 'no augmentation'}`;
}
