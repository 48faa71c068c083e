// Loads one split of data, whatever its source (npy, csv, a sample module, the mnist package,
// synthetic rows, an image folder, TFRecord shards), as the columns of a Dataset (rows.ts): .npy
// files are mapped, not read (mapped-npy.ts); images are decoded on demand (images/, shards/); the other sources
// are held in memory.
// Each source type's reader is READERS's entry.

import type { DataSource, NpyFiles } from '../config/types.ts';
import type { SourceType } from '../config/data-sources-table.ts';
import { DataError, MgpuError } from '../shared/errors.ts';
import { readNpy } from '../shared/npy.ts';
import { joinedColumn, memoryColumn } from './columns.ts';
import { isPattern, matchFiles } from '../shared/file-pattern.ts';
import { mappedNpy } from './mapped-npy.ts';
import type { ClassMapping } from './classes.ts';
import type { IndexPaths } from './data-record.ts';
import { loadImages, type ImageOptions } from './images/load-images.ts';
import { loadTfrecord } from './shards/load-tfrecord.ts';
import { loadTfrecordFeatures } from './shards/load-tfrecord-features.ts';
import { loadWebdataset } from './shards/load-webdataset.ts';
import { loadCsv } from './csv.ts';
import { loadMnist } from './mnist.ts';
import { loadSynthetic } from './synthetic.ts';
import type { Dataset, NamedArray } from './rows.ts';
import { mapStyleDataset } from './map-module.ts';
import { isMapStyle } from './map-style.ts';
import { collectSamples, produceModule } from './sample-module.ts';
import { weightsFromNpy } from './sample-weights.ts';
import { badSampleSkipRefused } from '../config/validate/on-bad-sample.ts';

export type { Dataset } from './rows.ts';

type Loaded = Dataset & { classes?: string[] | null; classLines?: number[]; index?: IndexPaths };
/** What a reader may need besides its source: see loadDataset. */
interface ReadContext {
  keyPath: string;
  classes: ClassMapping | null;
  abort: AbortSignal | null;
  images: ImageOptions | null;
}
type Reader<T extends SourceType> = (src: Extract<DataSource, { type: T }>, at: ReadContext) => Loaded | Promise<Loaded>;

/** How each source type is read, keyed by the source table's types (src/config/data-sources-table.ts). */
const READERS: { [T in SourceType]: Reader<T> } = {
  npy: (src, at) => loadNpy(src, at.keyPath),
  csv: (src, at) => loadCsv(src, at.keyPath, at.classes),
  module: async (src, at) => {
    const made = await produceModule(src, at.keyPath, at.abort);
    const skipBad = at.keyPath === 'data.train' && at.images?.skipBad === true; // data.onBadSample: skip
    if (!isMapStyle(made.produced)) {
      if (skipBad) throw badSampleSkipRefused(`data.train's module ${made.file} is a generator (not map-style)`);
      return collectSamples(made, src, at.keyPath, at.abort);
    }
    return mapStyleDataset(made.produced, made.where, at.keyPath, made.file, at.images?.threads ?? null, skipBad); // data.threads
  },
  mnist: (src, at) => {
    const { features, labels } = loadMnist(src.offset, src.count, src.labels, at.keyPath);
    return {
      features: memoryColumn(features),
      labels: memoryColumn(labels),
      count: src.count,
      source: `mnist digits [${src.offset}, ${src.offset + src.count})`,
    };
  },
  images: (src, at) => {
    if (!at.images) throw new MgpuError('E_INTERNAL', `${at.keyPath}: an images source needs its options (imageOptions(cfg): the seed, the threads)`);
    return loadImages(src, at.keyPath, at.classes, at.images);
  },
  tfrecord: (src, at) => {
    if (!at.images) throw new MgpuError('E_INTERNAL', `${at.keyPath}: a tfrecord source needs its options (imageOptions(cfg): the seed, the threads)`);
    return 'x' in src ? loadTfrecordFeatures(src, at.keyPath, at.images.skipBad === true) : loadTfrecord(src, at.keyPath, at.classes, at.images);
  },
  webdataset: (src, at) => {
    if (!at.images) throw new MgpuError('E_INTERNAL', `${at.keyPath}: a webdataset source needs its options (imageOptions(cfg): the seed, the threads)`);
    return loadWebdataset(src, at.keyPath, at.classes, at.images);
  },
  synthetic: (src) => loadSynthetic(src),
};

/**
 * Loads one split; `keyPath` (e.g. `data.train`) names its config entry in errors. `classes`:
 * the fixed mapping of a source with class names (a CSV with labelType 'class', images; see
 * classes.ts); such a split comes back with the class names its indices stand for.
 */
export async function loadDataset(
  src: DataSource,
  keyPath: string,
  classes: ClassMapping | null = null,
  abort: AbortSignal | null = null, // stops a data module's loading (Ctrl-C during start-up)
  images: ImageOptions | null = null, // an images source's threads, prefetch and seed (imageOptions(cfg))
): Promise<Loaded> {
  const read = READERS[src.type] as (src: DataSource, at: ReadContext) => Loaded | Promise<Loaded>;
  return read(src, { keyPath, classes, abort, images });
}

/** An npy source: its files mapped, not read; every features and labels file holds the same samples. */
function loadNpy(src: Extract<DataSource, { type: 'npy' }>, keyPath: string): Dataset {
  const inputs = readFiles(src.features, keyPath, 'features');
  const targets = readFiles(src.labels, keyPath, 'labels');
  const first = inputs[0]!;
  const count = first.array.shape[0]!;
  const fileCount = (a: NamedArray) => (a.parts ? `${a.parts.length} files ${a.file}` : a.file);
  for (const a of [...inputs.slice(1), ...targets]) {
    if (a.array.shape[0] !== count) {
      const what = (b: NamedArray) => (targets.includes(b) ? 'labels' : 'features') + (b.name ? ` '${b.name}'` : '');
      throw new DataError(
        `${keyPath}: ${what(first)} ${fileCount(first)} hold ${count} samples but ${what(a)} ${fileCount(a)} hold ${a.array.shape[0]} (expected the same first dimension)`,
        'each label row belongs to the feature row with the same index; check that the files come from the same split',
      );
    }
  }
  if (count === 0) throw new DataError(`${keyPath}: ${first.file} holds no samples (shape [${first.array.shape}])`, 'expected one row per sample');
  const ds: Dataset = {
    features: first.array,
    labels: targets[0]!.array,
    count,
    source: [...inputs, ...targets].map((a) => a.file).join(' + '),
    // Matched to the model's inputs and outputs by name (one unnamed file: the model's only one) in row-format.ts.
    inputs,
    targets,
  };
  if (src.weights) ds.weights = weightsFromNpy(readNpy(src.weights), src.weights, count, first.file, keyPath);
  return ds;
}

/**
 * One .npy file, or one per name, each an array with a sample dimension; a file name with `*` or
 * `?` (in its last part) stands for the files it matches, in sorted order, as one array.
 */
function readFiles(files: NpyFiles, keyPath: string, key: 'features' | 'labels'): NamedArray[] {
  const named = typeof files === 'string' ? [['', files] as const] : Object.entries(files);
  return named.map(([name, file]) => {
    const where = `${keyPath}${name ? `.${key}.${name}` : ''}`;
    const parts = isPattern(file) ? matchFiles(file, where) : null;
    const columns = (parts ?? [file]).map((f) => mappedNpy(f, keyPath, key === 'features'));
    columns.forEach((c, i) => {
      if (c.shape.length === 0)
        throw new DataError(
          `${where}: ${(parts ?? [file])[i]} holds a scalar (expected an array with one row per sample)`,
          'save it with a leading sample dimension, e.g. shape [N] or [N, ...]',
        );
    });
    const array = parts ? joinedColumn(columns, parts, `${keyPath}.${key}${name ? `.${name}` : ''}`) : columns[0]!;
    return { name, array, file, ...(parts ? { parts } : {}) };
  });
}
