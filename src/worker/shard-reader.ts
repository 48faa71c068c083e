// Reads a shard (n rows of features, then n rows of labels, then n weights when rows are
// weighted) from an input buffer of the slab into tensors shaped for the model.
import type { Tensor } from '@tensorflow/tfjs';
import type { RowFormat } from '../shared/protocol.ts';
import type { Slab } from '../shared/slab.ts';
import { sizeOf } from '../shared/layout.ts';
import type { TF } from './backend.ts';
import { copiesOnCreate } from './tensor-values.ts';

const BYTES = { float32: 4, int32: 4, uint8: 1 } as const;
const VIEW = { float32: Float32Array, int32: Int32Array, uint8: Uint8Array } as const;

export class ShardReader {
  private readonly bytes: Uint8Array;
  private readonly featureRow: number;
  private readonly labelRow: number;

  /** Whether tensors can be made from views of the shared pages (see copiesOnCreate). */
  private readonly copiesOnCreate: boolean;

  constructor(private readonly tf: TF, private readonly slab: Slab, private readonly rows: RowFormat, capacity: number) {
    this.copiesOnCreate = copiesOnCreate(tf);
    this.bytes = new Uint8Array(capacity);
    this.featureRow = sizeOf(rows.featureShape) * BYTES[rows.featureDtype];
    this.labelRow = sizeOf(rows.labelShape) * BYTES[rows.labelDtype];
  }

  /** x, y, and w (float32 [n]) when rows are weighted, else null. */
  read(position: number, n: number): { x: Tensor; y: Tensor; w: Tensor | null } {
    const fBytes = n * this.featureRow;
    const lBytes = n * this.labelRow;
    const wBytes = this.rows.weighted ? n * 4 : 0;
    let buf = this.copiesOnCreate ? this.slab.bytes(position, fBytes + lBytes + wBytes) : null;
    if (!buf) {
      buf = this.bytes.subarray(0, fBytes + lBytes + wBytes);
      this.slab.read(position, buf);
    }
    const { featureDtype: fd, labelDtype: ld, featureShape, labelShape } = this.rows;
    const f = this.typed(fd, buf, 0, fBytes);
    const l = this.typed(ld, buf, fBytes, lBytes);
    const x = this.tf.tensor(f, [n, ...featureShape], fd === 'uint8' ? 'int32' : fd);
    const y = this.tf.tensor(l, [n, ...labelShape], ld === 'uint8' ? 'int32' : ld);
    const w = wBytes ? this.tf.tensor(this.typed('float32', buf, fBytes + lBytes, wBytes), [n], 'float32') : null;
    // Models and losses compute in float32; integer labels (class indices) stay exact in it.
    return { x: this.asFloat(x), y: this.asFloat(y), w };
  }

  /** bytes [at, at + length) of buf as `dtype`: a view when the backend copies and it is aligned. */
  private typed(dtype: keyof typeof VIEW, buf: Uint8Array, at: number, length: number): Float32Array | Int32Array | Uint8Array {
    const offset = buf.byteOffset + at;
    if (this.copiesOnCreate && offset % BYTES[dtype] === 0) return new VIEW[dtype](buf.buffer as ArrayBuffer, offset, length / BYTES[dtype]);
    return new VIEW[dtype](buf.slice(at, at + length).buffer);
  }

  private asFloat(t: Tensor): Tensor {
    if (t.dtype === 'float32') return t;
    const f = this.tf.cast(t, 'float32');
    t.dispose();
    return f;
  }
}
