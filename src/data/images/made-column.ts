// The features column of an image split: rows [count, height, width, channels] that exist only
// once its pipeline has made them for (indices, epoch); gather copies them from the slots.
import type { NdArray } from '../../shared/npy.ts';
import type { ImagePipeline } from './image-pipeline.ts';
import { noWholeArray, type Column, type Dtype } from '../columns.ts';

export class MadeColumn implements Column {
  readonly kind = 'made' as const;

  constructor(
    readonly dtype: Dtype,
    readonly shape: number[],
    private readonly pipeline: ImagePipeline,
    private readonly rowBytes: number,
  ) {}

  gather(indices: ArrayLike<number>, out: Uint8Array, offset: number, epoch = 0): number {
    const total = indices.length * this.rowBytes;
    if (!Number.isInteger(offset) || offset < 0 || offset + total > out.length)
      throw new RangeError(`gather: ${indices.length} rows of ${this.rowBytes} bytes at offset ${offset} do not fit an output of ${out.length} bytes`);
    for (let k = 0; k < indices.length; k++) out.set(this.pipeline.row(indices[k]!, epoch), offset + k * this.rowBytes);
    return total;
  }

  toArray(): NdArray {
    return noWholeArray(`the decoded images [${this.shape.join(', ')}]`);
  }
}
