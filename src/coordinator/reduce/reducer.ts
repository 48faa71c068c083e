// The reduce/apply kernel over one slice [start, end) of the trainable vector:
//   g = grads[r0] + grads[r1] + ...   (rank order, float32: the same bits whoever runs it)
//   w, slots <- update rule (w, g, slots, lr, t)   (in the shared master weights)
//   weights region of the slab <- w
// It runs on the coordinator's thread for small models and in the piscina threads for large
// ones; since every operation is elementwise, the cut into slices never changes the result.
import type { OptimizerConfig } from '../../shared/config/types.ts';
import type { SlabLayout } from '../../shared/layout.ts';
import { Slab } from '../../shared/slab.ts';
import { makeUpdateRule } from '../optimizers/index.ts';

/** What every thread of the reduce needs, sent once when the pool starts. */
export interface ReduceShared {
  fd: number;
  slab: SlabLayout;
  optimizer: OptimizerConfig;
  weights: SharedArrayBuffer; // P float32: the master weights
  slots: SharedArrayBuffer[]; // optimizer state, Pt float32 each
}

export interface ReduceTask {
  start: number;
  end: number;
  ranks: number[]; // the ranks that computed this step, ascending
  lr: number;
  t: number; // 1-based update count
}

export type Reducer = (task: ReduceTask) => void;

export function makeReducer(shared: ReduceShared): Reducer {
  const slab = new Slab(shared.fd);
  const rule = makeUpdateRule(shared.optimizer);
  const weights = new Float32Array(shared.weights);
  const slots = shared.slots.map((s) => new Float32Array(s));
  let g = new Float32Array(0);
  let tmp = new Float32Array(0);
  return ({ start, end, ranks, lr, t }) => {
    const len = end - start;
    if (g.length < len) {
      g = new Float32Array(len);
      tmp = new Float32Array(len);
    }
    const gs = g.subarray(0, len);
    const ts = tmp.subarray(0, len);
    ranks.forEach((rank, k) => {
      const at = shared.slab.grads[rank] + start * 4;
      if (k === 0) return slab.read(at, gs);
      slab.read(at, ts);
      for (let i = 0; i < len; i++) gs[i] += ts[i];
    });
    const w = weights.subarray(start, end);
    rule.apply(w, gs, slots.map((s) => s.subarray(start, end)), lr, t);
    slab.write(shared.slab.weights + start * 4, w);
  };
}
