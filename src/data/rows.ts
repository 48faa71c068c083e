// A split of data as columns (columns.ts: in memory, mapped from files, or made on demand), and
// the copy of rows out of an array held in memory. Row r of an array is the byte range
// [r * rowBytes, (r+1) * rowBytes) of its data (C order), which is what makes gathering a batch a
// handful of memcpy-like Uint8Array.set calls.
import { VIEWS, type NdArray } from '../shared/npy.ts';
import type { Column, HeldColumn, RowPipeline } from './columns.ts';

/** One array of a dataset, named by the model input it feeds or the output it is the target of. */
export interface NamedArray {
  name: string; // '' for the one array of a model with one input (output)
  array: Column;
  file: string; // where it was read from, for messages (a pattern: `./x-*.npy`)
  /** The files a pattern matched, in the order their rows are joined. */
  parts?: string[];
  /** A sample module's x or y (keyed by the model's names in each sample), not a file's array. */
  module?: 'x' | 'y';
}

export interface Dataset {
  features: Column; // the model's input (its first, when it has several)
  labels: Column; // the model's output's target (its first's, when it has several)
  /**
   * The arrays of the model's inputs, named by input (in the config's order; row-format.ts puts
   * them in the model's), or one array named '' for the model's only input; features is the
   * first. Absent: features alone (csv, mnist).
   */
  inputs?: NamedArray[];
  /** The same for the targets of the model's outputs; labels is the first. */
  targets?: NamedArray[];
  count: number; // shape[0] of both
  source: string; // for messages, e.g. "mnist digits [0, 8000)"
  /**
   * Each sample's weight in the loss, float32 [count], finite and >= 0 (sample-weights.ts): the
   * source's sample weights times, in the training set, its class's weight. Absent: all 1.
   */
  weights?: NdArray;
  /** Makes the rows of its 'made' columns ahead of the steps that stage them (decoded images). */
  pipeline?: RowPipeline;
}

/** A dataset held whole in memory (CSV, mnist, a generator module): its columns are arrays too. */
export type HeldDataset = Dataset & {
  features: HeldColumn;
  labels: HeldColumn;
  inputs?: (NamedArray & { array: HeldColumn })[];
  targets?: (NamedArray & { array: HeldColumn })[];
};

/** Bytes per row (of an array or a column): the product of the shape after the first dimension, times the element size. */
export function rowBytes(a: Pick<NdArray, 'dtype' | 'shape'> & { data?: NdArray['data'] }): number {
  if (a.shape.length === 0) throw new RangeError('rowBytes: a scalar has no rows');
  return a.shape.slice(1).reduce((p, d) => p * d, VIEWS[a.dtype].BYTES_PER_ELEMENT);
}

/**
 * Copies rows `indices` of `src`, in that order, to `out` starting at byte `outOffset`; returns
 * the bytes written. Runs of consecutive indices are copied as one range.
 */
export function gatherRows(src: NdArray, indices: ArrayLike<number>, out: Uint8Array, outOffset: number): number {
  const rb = rowBytes(src);
  const bytes = new Uint8Array(src.data.buffer, src.data.byteOffset, src.data.byteLength);
  return copyRuns(indices, src.shape[0]!, rb, out, outOffset, (first, rows, at) => out.set(bytes.subarray(first * rb, (first + rows) * rb), at));
}

/**
 * Copies runs of consecutive rows: `copy(first, rows, at)` copies rows [first, first + rows) to
 * byte `at` of the output. Checks every index against `count`; returns the bytes written.
 */
export function copyRuns(
  indices: ArrayLike<number>,
  count: number,
  rowBytes: number,
  out: Uint8Array,
  offset: number,
  copy: (first: number, rows: number, at: number) => void,
): number {
  const total = indices.length * rowBytes;
  if (!Number.isInteger(offset) || offset < 0 || offset + total > out.length)
    throw new RangeError(`gather: ${indices.length} rows of ${rowBytes} bytes at offset ${offset} do not fit an output of ${out.length} bytes`);
  let k = 0;
  while (k < indices.length) {
    const first = indices[k]!;
    let end = k + 1;
    while (end < indices.length && indices[end] === first + (end - k)) end++;
    const last = first + (end - k) - 1;
    if (!Number.isInteger(first) || first < 0 || last >= count)
      throw new RangeError(`gather: row index ${first < 0 || !Number.isInteger(first) ? first : last} is outside [0, ${count})`);
    copy(first, end - k, offset + k * rowBytes);
    k = end;
  }
  return total;
}
