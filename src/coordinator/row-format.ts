// Checks, before the first step, that a dataset fits the model the workers built, and says how
// its rows are shaped in the input buffers.
import type { LossName } from '../shared/config/types.ts';
import { DataError } from '../shared/errors.ts';
import { sizeOf, type ModelLayout } from '../shared/layout.ts';
import type { RowFormat } from '../shared/protocol.ts';
import type { Dataset } from './data/dataset.ts';

const shape = (s: readonly (number | null)[]) => `[${s.map((d) => d ?? 'batch').join(', ')}]`;

export function rowFormat(ds: Dataset, layout: ModelLayout, loss: LossName, keyPath: string): RowFormat {
  const modelRow = layout.inputShape.slice(1);
  const dataRow = ds.features.shape.slice(1);
  let featureShape = dataRow;
  if (modelRow.every((d): d is number => d !== null)) {
    if (sizeOf(modelRow) !== sizeOf(dataRow)) {
      throw new DataError(
        `${keyPath}: feature rows of ${ds.source} have shape ${shape(dataRow)} (${sizeOf(dataRow)} values) but the model's input is ${shape(layout.inputShape)} (${sizeOf(modelRow)} values per sample)`,
        'reshape the features, or change the model input shape',
      );
    }
    featureShape = modelRow; // same values per row: rows are reshaped to the model's input
  }
  const outRow = layout.outputShape.slice(1) as number[];
  const labelRow = ds.labels.shape.slice(1);
  const outSize = sizeOf(outRow);
  if (labelRow.length === 1 && labelRow[0] === 0) {
    // Rows without labels (prediction): nothing to check, nothing to copy.
    return { featureDtype: ds.features.dtype, featureShape: featureShape as number[], labelDtype: 'float32', labelShape: [0] };
  }
  if (loss === 'sparseCategoricalCrossentropy') {
    if (sizeOf(labelRow) !== 1) {
      throw new DataError(`${keyPath}: sparseCategoricalCrossentropy wants one class index per sample, but label rows of ${ds.source} have shape ${shape(labelRow)}`, 'use categoricalCrossentropy for one-hot labels');
    }
  } else if (sizeOf(labelRow) !== outSize) {
    throw new DataError(
      `${keyPath}: label rows of ${ds.source} have shape ${shape(labelRow)} (${sizeOf(labelRow)} values) but the model's output is ${shape(layout.outputShape)} (${outSize} values per sample)`,
      loss === 'categoricalCrossentropy' && sizeOf(labelRow) === 1 ? 'class-index labels need loss: sparseCategoricalCrossentropy' : undefined,
    );
  }
  return {
    featureDtype: ds.features.dtype,
    featureShape: featureShape as number[],
    labelDtype: ds.labels.dtype,
    labelShape: loss === 'sparseCategoricalCrossentropy' ? [] : (outRow.length ? outRow : labelRow),
  };
}
