// The data's labels against the loss: class names (csv labelType: class) and the label form of
// mnist and synthetic sources need a loss that takes them; mnist's count against a batch that
// dropLast would drop.

import { readsClassNames } from '../data-sources-table.ts';
import { ConfigError } from '../../shared/errors.ts';
import { hasClasses, labelsOf, lossLabel } from '../loss.ts';
import type { Config, DataSource, LossEntry } from '../types.ts';

/** The checks of the data's labels against the loss and the batch, in this order. */
export function checkLabelsFitLoss(data: Config['data'], loss: LossEntry, training: Config['training']): void {
  checkClassLabels(data, loss);
  checkMnistLabels(data, loss);
  checkMnistBatch(data, training.batchSize, training.dropLast);
}

/**
 * labelType 'class' gives class indices: sparseCategoricalCrossentropy's labels. Eval names are
 * encoded with the training mapping, so eval can read names only if training has a mapping.
 */
function checkClassLabels(data: Config['data'], loss: LossEntry): void {
  const named = (src: DataSource | null) => src?.type === 'csv' && src.labelType === 'class';
  for (const [key, src] of [
    ['data.train', data.train],
    ['data.eval', data.eval],
  ] as const) {
    if (!named(src) || labelsOf(loss) === 'index') continue;
    throw new ConfigError(
      `${key}.labelType`,
      `'class' gives class indices, which loss ${typeof loss === 'string' ? `'${loss}'` : lossLabel(loss)} does not take`,
      !hasClasses(loss)
        ? 'class names need a classification loss: loss: sparseCategoricalCrossentropy (or labelType: float for numeric targets)'
        : 'use loss: sparseCategoricalCrossentropy (a softmax with one output per class; two classes work as two outputs)',
    );
  }
  if (named(data.eval) && !named(data.train) && data.classes === null) {
    throw new ConfigError(
      'data.eval.labelType',
      "is 'class', but data.train has no class names to map them with",
      'set data.train.labelType: class, or list the classes in data.classes',
    );
  }
  checkImageLabels(data, loss);
  if (data.classes !== null && !readsClassNames(data)) {
    throw new ConfigError('data.classes', 'is set, but no data source reads class names', 'set labelType: class on the CSV source, or remove data.classes');
  }
}

/**
 * An images source labels with classes (its folders' or list's): class indices for
 * sparseCategoricalCrossentropy, one-hot rows for categoricalCrossentropy; no other loss.
 */
function checkImageLabels(data: Config['data'], loss: LossEntry): void {
  for (const [key, src] of [
    ['data.train', data.train],
    ['data.eval', data.eval],
  ] as const) {
    const takes = labelsOf(loss);
    if (
      (src?.type !== 'images' && src?.type !== 'webdataset' && !(src?.type === 'tfrecord' && 'image' in src)) ||
      takes === 'index' ||
      takes === 'onehot' ||
      takes === null
    )
      continue;
    throw new ConfigError(
      'loss',
      `${key} is '${src.type}', whose labels are classes (${src.type === 'images' ? 'one per class folder' : 'class indices'}), which loss ${lossLabel(loss)} does not take`,
      'use loss: sparseCategoricalCrossentropy or categoricalCrossentropy (a softmax with one output per class)',
    );
  }
}

function checkMnistLabels(data: Config['data'], loss: LossEntry): void {
  for (const [key, src] of [
    ['data.train', data.train],
    ['data.eval', data.eval],
  ] as const) {
    if (src?.type !== 'mnist' && src?.type !== 'synthetic') continue;
    // A custom loss reads either form its own way.
    if (typeof loss !== 'string') continue;
    const fits = (src.labels === 'index') === (labelsOf(loss) === 'index');
    if (!fits) {
      throw new ConfigError(
        `${key}.labels`,
        `'${src.labels}' labels do not fit loss '${loss}'`,
        src.labels === 'index'
          ? 'class-index labels need loss sparseCategoricalCrossentropy'
          : 'sparseCategoricalCrossentropy needs class-index labels: set labels: index',
      );
    }
  }
}

function checkMnistBatch(data: Config['data'], batchSize: number, dropLast: boolean): void {
  if (data.train.type === 'mnist' && dropLast && batchSize > data.train.count) {
    throw new ConfigError(
      'training.batchSize',
      `${batchSize} is more than the ${data.train.count} training samples, and dropLast drops that one short batch`,
      'lower training.batchSize, or set training.dropLast: false',
    );
  }
}
