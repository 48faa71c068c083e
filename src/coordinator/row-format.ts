// Checks, before the first step, that a dataset fits the model the workers built, and says how
// its rows are shaped in the input buffers.
import type { LossName } from '../shared/config/types.ts';
import { DataError } from '../shared/errors.ts';
import { sizeOf, type ModelLayout } from '../shared/layout.ts';
import type { RowFormat } from '../shared/protocol.ts';
import type { Dataset } from './data/rows.ts';

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
    return { featureDtype: ds.features.dtype, featureShape: featureShape, labelDtype: 'float32', labelShape: [0] };
  }
  if (loss === 'sparseCategoricalCrossentropy') {
    if (sizeOf(labelRow) !== 1) {
      throw new DataError(`${keyPath}: sparseCategoricalCrossentropy wants one class index per sample, but label rows of ${ds.source} have shape ${shape(labelRow)}`, 'use categoricalCrossentropy for one-hot labels');
    }
    checkLabels(ds, keyPath, (v) => Number.isInteger(v) && v >= 0 && v < outSize, `class indices 0..${outSize - 1} (the model has ${outSize} outputs)`);
  } else if (sizeOf(labelRow) !== outSize) {
    throw new DataError(
      `${keyPath}: label rows of ${ds.source} have shape ${shape(labelRow)} (${sizeOf(labelRow)} values) but the model's output is ${shape(layout.outputShape)} (${outSize} values per sample)`,
      loss === 'categoricalCrossentropy' && sizeOf(labelRow) === 1 ? 'class-index labels need loss: sparseCategoricalCrossentropy' : undefined,
    );
  }
  checkFinite(ds, keyPath);
  if (loss === 'binaryCrossentropy') checkLabels(ds, keyPath, (v) => v >= 0 && v <= 1, 'values in [0, 1]');
  if (loss === 'categoricalCrossentropy') checkLabels(ds, keyPath, (v) => v >= 0 && v <= 1, 'one-hot or probability rows (values in [0, 1])');
  return {
    featureDtype: ds.features.dtype,
    featureShape: featureShape,
    labelDtype: ds.labels.dtype,
    labelShape: loss === 'sparseCategoricalCrossentropy' ? [] : (outRow.length ? outRow : labelRow),
  };
}

/** Names the first label that the loss cannot take: its sample, its value and what was expected. */
function checkLabels(ds: Dataset, keyPath: string, ok: (v: number) => boolean, expected: string): void {
  const data = ds.labels.data;
  const per = Math.max(1, data.length / Math.max(1, ds.count));
  for (let i = 0; i < data.length; i++) {
    if (!ok(data[i]!)) {
      throw new DataError(`${keyPath}: label of sample ${Math.floor(i / per)} in ${ds.source} is ${data[i]}; the loss expects ${expected}`,
        'check the labels file and the loss in the config');
    }
  }
}

/** A NaN or infinite feature would only show up mid-run as a NaN loss: name it now. */
function checkFinite(ds: Dataset, keyPath: string): void {
  if (ds.features.dtype !== 'float32') return;
  const data = ds.features.data;
  const per = Math.max(1, data.length / Math.max(1, ds.count));
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(data[i])) {
      throw new DataError(`${keyPath}: feature ${i % per} of sample ${Math.floor(i / per)} in ${ds.source} is ${data[i]}`, 'clean or impute the features before training');
    }
  }
}
