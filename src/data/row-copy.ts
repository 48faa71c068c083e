// The copy of rows out of an array. Row r of an array is the byte range [r * rowBytes,
// (r+1) * rowBytes) of its data (C order), which is what makes gathering a batch a handful of
// memcpy-like Uint8Array.set calls.
import { VIEWS, type NdArray } from '../shared/npy.ts';

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
