// Loads one split of data, whatever its source (npy, csv, a sample module, the mnist package),
// into the typed arrays of a Dataset (rows.ts).

import type { DataSource } from '../../shared/config/types.ts';
import { DataError } from '../../shared/errors.ts';
import { readNpy } from '../../shared/npy.ts';
import { loadCsv } from './csv.ts';
import { loadMnist } from './mnist.ts';
import type { Dataset } from './rows.ts';
import { loadSampleModule } from './sample-module.ts';
import { weightsFromNpy } from './sample-weights.ts';

export type { Dataset } from './rows.ts';

/** Loads one split; `keyPath` (e.g. `data.train`) names its config entry in errors. */
export async function loadDataset(src: DataSource, keyPath: string): Promise<Dataset> {
  if (src.type === 'mnist') {
    const { features, labels } = loadMnist(src.offset, src.count, src.labels, keyPath);
    return { features, labels, count: src.count, source: `mnist digits [${src.offset}, ${src.offset + src.count})` };
  }
  if (src.type === 'csv') return loadCsv(src, keyPath);
  if (src.type === 'module') return loadSampleModule(src, keyPath);
  const features = readNpy(src.features);
  const labels = readNpy(src.labels);
  for (const [path, a] of [[src.features, features], [src.labels, labels]] as const) {
    if (a.shape.length === 0) throw new DataError(`${keyPath}: ${path} holds a scalar (expected an array with one row per sample)`, 'save it with a leading sample dimension, e.g. shape [N] or [N, ...]');
  }
  const count = features.shape[0]!;
  if (labels.shape[0] !== count) {
    throw new DataError(
      `${keyPath}: features ${src.features} hold ${count} samples but labels ${src.labels} hold ${labels.shape[0]} (expected the same first dimension)`,
      'each label row belongs to the feature row with the same index; check that the two files come from the same split',
    );
  }
  if (count === 0) throw new DataError(`${keyPath}: ${src.features} holds no samples (shape [${features.shape}])`, 'expected one row per sample');
  const ds: Dataset = { features, labels, count, source: `${src.features} + ${src.labels}` };
  if (src.weights) ds.weights = weightsFromNpy(readNpy(src.weights), src.weights, count, src.features, keyPath);
  return ds;
}

