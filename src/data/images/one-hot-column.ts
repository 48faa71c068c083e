// The labels of an image split for a loss that takes one-hot rows (categoricalCrossentropy):
// float32 [count, classes], each row made from the class index as it is gathered, so only the
// int32 indices are held (a million images of a thousand classes would be 4 GB of one-hot rows).
import { DataError } from '../../shared/errors.ts';
import type { NdArray } from '../../shared/npy.ts';
import { noWholeArray, type Column } from '../columns.ts';

export function oneHotColumn(labels: Int32Array, classes: number): Column {
  const rowBytes = classes * 4;
  return {
    dtype: 'float32',
    shape: [labels.length, classes],
    kind: 'made',
    gather(indices: ArrayLike<number>, out: Uint8Array, offset: number): number {
      const total = indices.length * rowBytes;
      if (offset % 4 !== 0 || offset + total > out.length)
        throw new RangeError(`gather: ${indices.length} one-hot rows do not fit at byte ${offset} of ${out.length}`);
      const rows = new Float32Array(out.buffer, out.byteOffset + offset, indices.length * classes).fill(0);
      for (let k = 0; k < indices.length; k++) rows[k * classes + labels[indices[k]!]!] = 1;
      return total;
    },
    toArray(): NdArray {
      return noWholeArray(`the one-hot labels [${labels.length}, ${classes}]`);
    },
    /** Every value is 0 or 1, whatever the row: checked once. */
    checkEach(ok: (v: number) => boolean, expected: string): void {
      if (!ok(0) || !ok(1))
        throw new DataError(`one-hot class labels (0 and 1) are not ${expected}`, 'use loss: sparseCategoricalCrossentropy or categoricalCrossentropy');
    },
  };
}
