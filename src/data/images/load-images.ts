// A `type: images` split: its index (a folder of class folders, or a CSV list), its labels
// (class indices, int32 [count]), and its features as a 'made' column [count, h, w, c] whose
// rows a thread pool decodes ahead of the steps that stage them.
import type { FileFingerprint } from '../file-fingerprint.ts';
import os from 'node:os';
import type { Config, ImageSource } from '../../config/types.ts';
import type { ClassMapping } from '../classes.ts';
import type { IndexPaths } from '../data-record.ts';
import type { ShardOrderSpec } from '../rows.ts';
import { memoryColumn, type Column } from '../columns.ts';
import { labelsOf, oneLoss, perOutputLosses } from '../../config/loss.ts';
import { oneHotColumn } from './one-hot-column.ts';
import { decodeSpec, describeDecoding, rowBytesOf, type ImageUse } from './decode-spec.ts';
import { indexFolder, type ImageIndex } from './folder-index.ts';
import { ImagePipeline } from './image-pipeline.ts';
import { indexList } from './list-index.ts';
import { MadeColumn } from './made-column.ts';
import { imageExtensions, requireSharp } from './sharp-module.ts';

/** What the loader takes from the rest of the config: data.threads, data.prefetch, training.seed, the workers on this machine. */
export interface ImageOptions {
  threads: number | null;
  prefetch: number;
  seed: number;
  localWorkers: number;
  labels?: 'index' | 'onehot'; // class indices (the default), or one-hot rows: the loss decides (imageOptions)
  skipBad?: boolean; // data.onBadSample: skip, for the training split: a file that does not decode is left out
  use?: ImageUse; // what reads the rows (the hint of a bad file), default a training run
  modelClasses?: number | null; // model.classes when the config sets it: bounds a shard split's numbered labels (record-labels.ts)
}

export interface ImageSplit {
  features: MadeColumn;
  labels: Column; // int32 class indices [count], or one-hot float32 [count, classes] made as gathered
  count: number;
  source: string;
  pipeline: ImagePipeline;
  classes: string[];
  index: IndexPaths; // each image's path and class, for the split's record (data-record.ts)
  shardFingerprints?: ReadonlyMap<string, FileFingerprint>; // of shards given as URLs (Dataset's)
  shardOrder?: ShardOrderSpec; // data.train.order: shards (Dataset's)
}

/** The options of a run's images sources: data.threads, data.prefetch, training.seed, and the workers on this machine. */
export function imageOptions(cfg: Config, use: ImageUse = 'train'): ImageOptions {
  const d = cfg.devices;
  const gpus = d.simulate > 0 ? d.simulate : d.gpus === 'all' ? 1 : d.gpus.length;
  const loss = oneLoss(cfg.loss) ?? Object.values(perOutputLosses(cfg.loss) ?? {})[0]; // an image model has one output
  const labels = loss !== undefined && labelsOf(loss) === 'onehot' ? 'onehot' : 'index';
  return {
    threads: cfg.data.threads,
    prefetch: cfg.data.prefetch,
    seed: cfg.training.seed,
    localWorkers: gpus * d.workersPerGpu,
    labels,
    skipBad: cfg.data.onBadSample === 'skip',
    use,
    modelClasses: cfg.model.net?.classes ?? null,
  };
}

/** The thread count: data.threads, else the cores the workers leave, at least 1. */
export function imageThreads(o: ImageOptions): number {
  return o.threads ?? Math.max(1, os.availableParallelism() - o.localWorkers);
}

export function loadImages(src: ImageSource, keyPath: string, classes: ClassMapping | null, o: ImageOptions): ImageSplit {
  const sharp = requireSharp(keyPath);
  const index: ImageIndex = src.dir !== null ? indexFolder(src.dir, keyPath, imageExtensions(sharp), classes) : indexList(src.list!, keyPath, classes);
  const count = index.paths.count;
  // Augmentation is for training only: data.eval and predict never augment.
  const spec = decodeSpec(src, keyPath === 'data.train', o.seed, o.use);
  const where = src.dir !== null ? `folder ${src.dir}` : `list ${src.list}`;
  const header = [
    `images ${where}: ${index.found.describeImages()} in ${index.classes.length} class${index.classes.length === 1 ? '' : 'es'}, ${spec.height}x${spec.width}x${spec.channels} ${spec.dtype}, ${describeDecoding(spec)}`,
    index.found.describeSkipped(),
    ...index.found.warnings,
  ]
    .filter(Boolean)
    .join('; ');
  // Only training skips a bad file: an evaluation or a prediction of every sample says which one failed.
  const pipeline = new ImagePipeline(index.paths, spec, imageThreads(o), header, keyPath === 'data.train' && o.skipBad === true);
  return {
    features: new MadeColumn(spec.dtype, [count, spec.height, spec.width, spec.channels], pipeline, rowBytesOf(spec)),
    labels: o.labels === 'onehot' ? oneHotColumn(index.labels, index.classes.length) : memoryColumn({ dtype: 'int32', shape: [count], data: index.labels }),
    count,
    source: `images ${where}`,
    pipeline,
    classes: index.classes,
    index: { count, relative: (i) => index.paths.relative(i), labels: index.labels },
  };
}
