// Reads a shard (n rows of features, then n rows of labels) from an input buffer of the slab
// into tensors shaped for the model.
import type { Tensor } from '@tensorflow/tfjs';
import type { RowFormat } from '../shared/protocol.ts';
import type { Slab } from '../shared/slab.ts';
import { sizeOf } from '../shared/layout.ts';
import type { TF } from './backend.ts';

const BYTES = { float32: 4, int32: 4, uint8: 1 } as const;
const VIEW = { float32: Float32Array, int32: Int32Array, uint8: Uint8Array } as const;

export class ShardReader {
  private readonly bytes: Uint8Array;
  private readonly featureRow: number;
  private readonly labelRow: number;

  constructor(private readonly tf: TF, private readonly slab: Slab, private readonly rows: RowFormat, capacity: number) {
    this.bytes = new Uint8Array(capacity);
    this.featureRow = sizeOf(rows.featureShape) * BYTES[rows.featureDtype];
    this.labelRow = sizeOf(rows.labelShape) * BYTES[rows.labelDtype];
  }

  read(position: number, n: number): { x: Tensor; y: Tensor } {
    const fBytes = n * this.featureRow;
    const lBytes = n * this.labelRow;
    const buf = this.bytes.subarray(0, fBytes + lBytes);
    this.slab.read(position, buf);
    const { featureDtype: fd, labelDtype: ld, featureShape, labelShape } = this.rows;
    // Copies (slice), since tensors may keep the array they are made from.
    const f = new VIEW[fd](buf.slice(0, fBytes).buffer);
    const l = new VIEW[ld](buf.slice(fBytes).buffer);
    const x = this.tf.tensor(f, [n, ...featureShape], fd === 'uint8' ? 'int32' : fd);
    const y = this.tf.tensor(l, [n, ...labelShape], ld === 'uint8' ? 'int32' : ld);
    // Models and losses compute in float32; integer labels (class indices) stay exact in it.
    return { x: this.asFloat(x), y: this.asFloat(y) };
  }

  private asFloat(t: Tensor): Tensor {
    if (t.dtype === 'float32') return t;
    const f = this.tf.cast(t, 'float32');
    t.dispose();
    return f;
  }
}
