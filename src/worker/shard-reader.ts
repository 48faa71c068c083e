// Reads a shard from an input buffer of the slab into tensors shaped for the model: part after
// part of the row format (RowFormat: the model's inputs, the targets of its outputs, the loss
// weights), n rows of each.
import type { Tensor } from '@tensorflow/tfjs';
import type { RowFormat } from '../shared/protocol.ts';
import type { Slab } from '../shared/slab.ts';
import { sizeOf } from '../shared/layout.ts';
import type { TF } from './backend.ts';
import { copiesOnCreate } from './tensor-values.ts';

const BYTES = { float32: 4, int32: 4, uint8: 1 } as const;
const VIEW = { float32: Float32Array, int32: Int32Array, uint8: Uint8Array } as const;

export interface Shard {
  inputs: Tensor[]; // one per model input, in the model's order
  targets: Tensor[]; // one per model output (none in a predict run)
  weights: Tensor | null; // float32 [n] when rows are weighted
}

export class ShardReader {
  private readonly bytes: Uint8Array;
  private readonly rowBytes: number[];
  private readonly total: number;

  /** Whether tensors can be made from views of the shared pages (see copiesOnCreate). */
  private readonly copiesOnCreate: boolean;

  constructor(
    private readonly tf: TF,
    private readonly slab: Slab,
    private readonly rows: RowFormat,
    capacity: number,
  ) {
    this.copiesOnCreate = copiesOnCreate(tf);
    this.bytes = new Uint8Array(capacity);
    this.rowBytes = rows.parts.map((p) => sizeOf(p.shape) * BYTES[p.dtype]);
    this.total = this.rowBytes.reduce((a, b) => a + b, 0);
  }

  read(position: number, n: number): Shard {
    let buf = this.copiesOnCreate ? this.slab.bytes(position, n * this.total) : null;
    if (!buf) {
      buf = this.bytes.subarray(0, n * this.total);
      this.slab.read(position, buf);
    }
    const out: Shard = { inputs: [], targets: [], weights: null };
    let at = 0;
    this.rows.parts.forEach((p, i) => {
      const length = n * this.rowBytes[i]!;
      const t = this.tf.tensor(this.typed(p.dtype, buf, at, length), [n, ...p.shape], p.dtype === 'uint8' ? 'int32' : p.dtype);
      at += length;
      // Models and losses compute in float32; integer labels (class indices) stay exact in it.
      if (p.role === 'input') out.inputs.push(this.asFloat(t));
      else if (p.role === 'target') out.targets.push(this.asFloat(t));
      else out.weights = t;
    });
    return out;
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
