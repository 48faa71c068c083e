// `predict --input` with a TFRecord or WebDataset tar shard: its records read by the loaders
// training reads shards with (src/data/shards/), never augmented. Images are decoded by the
// decoding keys of the config's image source (images, tfrecord or webdataset: the same keys);
// the feature keys are the training source's when it is of the shard's kind, else those
// `mgpu-train shards` writes. A tfrecord source of x / y features gives the model's inputs
// from the shard's x features. The records' labels are read (training's readers index them) but
// not used.
import type { Config, ImageSource, TfrecordImageSource, WebdatasetSource } from '../config/types.ts';
import { MgpuError } from '../shared/errors.ts';
import type { RowPipeline } from './columns.ts';
import { imageOptions } from './images/load-images.ts';
import type { NamedArray } from './rows.ts';
import { loadTfrecord } from './shards/load-tfrecord.ts';
import { loadTfrecordFeatures } from './shards/load-tfrecord-features.ts';
import { loadWebdataset } from './shards/load-webdataset.ts';

/** The source whose keys say how images are decoded: data.train's, else data.eval's, if one holds images. */
export function imageDecodingSource(cfg: Config): ImageSource | TfrecordImageSource | WebdatasetSource | null {
  for (const s of [cfg.data.train, cfg.data.eval]) {
    if (s?.type === 'images' || s?.type === 'webdataset' || (s?.type === 'tfrecord' && 'image' in s)) return s;
  }
  return null;
}

/** Where the config's image decoding would come from, for the error that finds none. */
export const NO_DECODING_HINT =
  'predict with the config the model was trained with: its data.train (type: images, tfrecord with image / label, or webdataset) says how images are decoded (size, channels, resize, rescale, normalize)';

export interface ShardInput {
  inputs: NamedArray[];
  pipeline: RowPipeline | null; // decodes the rows of an image shard
  rows: string; // what the rows are, for the line that reports the predictions
}

/** The rows of the shard `file` (`value` as `option`, --input or the API's, gave it) of `kind`. */
export async function shardInput(cfg: Config, kind: 'tfrecord' | 'webdataset', file: string, value: string, option = '--input'): Promise<ShardInput> {
  const train = cfg.data.train;
  const what = `${option} ${value}`;
  if (kind === 'tfrecord' && train.type === 'tfrecord' && 'x' in train) {
    const ds = await loadTfrecordFeatures({ type: 'tfrecord', files: file, x: train.x, y: train.y }, what, false);
    return { inputs: ds.inputs ?? [{ name: '', array: ds.features, file: value }], pipeline: null, rows: 'records' };
  }
  const decoding = imageDecodingSource(cfg);
  if (!decoding) {
    throw new MgpuError(
      'E_USAGE',
      `${what}: a ${kind === 'tfrecord' ? 'TFRecord' : 'WebDataset tar'} shard of images, but the config has no image source to say how to decode them`,
      {
        hint: NO_DECODING_HINT,
      },
    );
  }
  const keys = { ...decoding } as Record<string, unknown>;
  for (const k of ['type', 'dir', 'list', 'files', 'shards', 'image', 'label', 'labelOffset', 'http', 'order', 'openShards']) delete keys[k];
  const options = imageOptions(cfg, 'predict');
  if (kind === 'tfrecord') {
    const same = decoding.type === 'tfrecord' ? decoding : null;
    const src = {
      ...keys,
      type: 'tfrecord',
      files: file,
      image: same?.image ?? 'image/encoded',
      label: same?.label ?? 'image/class/label',
      labelOffset: same?.labelOffset ?? 0,
      order: 'shards',
    } as TfrecordImageSource;
    const split = await loadTfrecord(src, what, null, options);
    return { inputs: [{ name: '', array: split.features, file: value }], pipeline: split.pipeline, rows: 'records' };
  }
  const same = decoding.type === 'webdataset' ? decoding : null;
  const src = {
    ...keys,
    type: 'webdataset',
    shards: file,
    image: same?.image ?? ['jpg', 'jpeg', 'png', 'webp'],
    label: same?.label ?? 'cls',
    labelOffset: same?.labelOffset ?? 0,
    order: 'shards',
  } as WebdatasetSource;
  const split = await loadWebdataset(src, what, null, options);
  return { inputs: [{ name: '', array: split.features, file: value }], pipeline: split.pipeline, rows: 'samples' };
}
