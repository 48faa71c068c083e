// The lead's contract for columns and rows made on demand (src/data/columns.ts on main), as
// this branch codes against it until it lands; then these come from there.
import type { NdArray } from '../../shared/npy.ts';

export type Dtype = 'float32' | 'int32' | 'uint8';
export interface Column {
  readonly dtype: Dtype;
  readonly shape: number[];
  readonly kind: 'memory' | 'mapped' | 'made';
  gather(indices: ArrayLike<number>, out: Uint8Array, offset: number, epoch?: number): number;
  toArray(): NdArray;
}
export interface RowPipeline {
  prefetch(indices: Uint32Array, epoch: number): void;
  ready(indices: Uint32Array, epoch: number): Promise<void>;
  isReady(indices: Uint32Array, epoch: number): boolean;
  release(indices: Uint32Array, epoch: number): void;
  close(): Promise<void>;
  describe(): string;
}
