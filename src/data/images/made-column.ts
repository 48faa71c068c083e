// The features column of an image split: rows [count, height, width, channels] that exist only
// once its pipeline has made them for (indices, epoch); gather copies them from the slots.
import { MgpuError } from '../../shared/errors.ts';
import type { NdArray } from '../../shared/npy.ts';
import type { ImagePipeline } from './image-pipeline.ts';
import type { Column, Dtype } from './row-contract.ts';

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
    throw new MgpuError('E_INTERNAL', `the decoded images (${this.shape.join(' x ')}) are made on demand, never held whole`);
  }
}
