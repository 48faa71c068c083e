// The arrays of a Dataset that feed the model's inputs and are compared with its outputs: one of
// each (features, labels), or several, named by the model's input and output names.
import type { Dataset, NamedArray } from './rows.ts';

/** The model's inputs, in order: the dataset's named inputs, or its features alone. */
export function inputArrays(ds: Dataset): NamedArray[] {
  return ds.inputs ?? [{ name: '', array: ds.features, file: ds.source }];
}

/** The targets of the model's outputs, in order: the dataset's named targets, or its labels alone. */
export function targetArrays(ds: Dataset): NamedArray[] {
  return ds.targets ?? [{ name: '', array: ds.labels, file: ds.source }];
}
