// The reduce/apply kernel over one slice [start, end) of the trainable vector:
//   g = grads[r0] + grads[r1] + ...        rank order, float32: the same bits whoever runs it
//                                          (the first ranks may be summed while later ones
//                                          still compute: `accumulate`, then a continuing pass)
//   (several machines: g <- Σ over machines, the allreduce between a sum pass and the rest)
//   (clipping: g *= min(1, clipNorm / ‖g‖), ‖g‖ from a first pass over every slice)
//   w, slots <- update rule (w, g, slots, lr, t)      in the master weights
//   ema <- ema - (1 - d_t) (ema - w)                   when an EMA is kept
//   weights region of the slab <- w                    (nothing to copy when mapped: the
//                                                       master weights are that region)
// It runs on the coordinator's thread for small models and in the piscina threads for large
// ones. Every operation is elementwise except the squared norm, which is summed per fixed
// CHUNK of the vector and combined in chunk order: the cut into slices never changes a bit.
// The loops are the float kernels (C when the addon is built, else the same arithmetic in JS).
import type { OptimizerConfig } from '../../../config/types.ts';
import type { SlabLayout } from '../../../shared/layout.ts';
import { MgpuError } from '../../../shared/errors.ts';
import { floatKernels } from '../../../shared/float-kernels.ts';
import { Slab } from '../../../shared/slab.ts';
import { makeUpdateRule } from '../optimizers/index.ts';

/** Floats per partial sum of squares; slice boundaries are multiples of it. */
export const CHUNK = 1 << 14;

/** What every thread of the reduce needs, sent once when the pool starts. */
export interface ReduceShared {
  fd: number;
  slab: SlabLayout;
  optimizer: OptimizerConfig;
  /** P float32: the master weights; null when the slab is mapped and they live in its weights region. */
  weights: SharedArrayBuffer | null;
  slots: SharedArrayBuffer[]; // optimizer state, Pt float32 each
  ema: SharedArrayBuffer | null; // P float32
  emaDecay: number;
  gradSum: SharedArrayBuffer; // Pt float32: the running sum of the ranks' gradients
}

/** `continuing`: gradSum already holds the sum of the ranks before `ranks`. */
export type ReduceTask =
  /** A rank that arrived early: gradSum = its gradient (first) or gradSum += it. */
  | { kind: 'accumulate'; start: number; end: number; rank: number; first: boolean }
  /** One pass: sum the remaining ranks, update, EMA, publish. */
  | { kind: 'fused'; start: number; end: number; ranks: number[]; continuing: boolean; lr: number; t: number }
  /** Clipping, pass 1: sum the remaining ranks into gradSum. */
  | { kind: 'sum'; start: number; end: number; ranks: number[]; continuing: boolean }
  /** Clipping, pass 2: update from gradSum scaled, EMA, publish. */
  | { kind: 'apply'; start: number; end: number; lr: number; t: number; scale: number }
  /** Several machines: the sums of squares of gradSum once the machines' sums are added into it. */
  | { kind: 'norm'; start: number; end: number };

/** Per-CHUNK sums of squares of the summed gradient over the slice (before clipping). */
export type Reducer = (task: ReduceTask) => number[];

/** TensorFlow's ExponentialMovingAverage with num_updates: the decay ramps up early in a run. */
export const emaDecayAt = (decay: number, t: number): number => Math.min(decay, (1 + t) / (10 + t));

export function makeReducer(shared: ReduceShared): Reducer {
  const slab = new Slab(shared.fd, { mmap: shared.weights === null });
  slab.attach(shared.slab);
  if (shared.weights === null && slab.mode !== 'mapped') {
    // The coordinator keeps the master weights in the mapped slab; a thread that cannot map it
    // would update nothing.
    throw new MgpuError('E_INTERNAL', `a reduce thread cannot map the slab (${slab.fallbackReason}) although the coordinator did`, {
      hint: 'set MGPU_MMAP=0 to use positional I/O everywhere',
    });
  }
  const rule = makeUpdateRule(shared.optimizer);
  const weights = shared.weights ? new Float32Array(shared.weights) : slab.floats(shared.slab.weights, shared.slab.params)!;
  const inPlace = shared.weights === null;
  const slots = shared.slots.map((s) => new Float32Array(s));
  const ema = shared.ema ? new Float32Array(shared.ema) : null;
  const gradSum = new Float32Array(shared.gradSum);
  let g = new Float32Array(0);
  let tmp = new Float32Array(0);

  // Mapped: each rank's gradient is read in place; positional: copied into tmp first.
  const gradsOf = (rank: number, start: number, len: number): Float32Array => {
    const at = shared.slab.grads[rank]! + start * 4;
    const view = slab.floats(at, len);
    if (view) return view;
    if (tmp.length < len) tmp = new Float32Array(len);
    const ts = tmp.subarray(0, len);
    slab.read(at, ts);
    return ts;
  };
  const k = floatKernels();
  /** out += g (when given), returning the per-CHUNK sums of squares of out. */
  const addSquares = (out: Float32Array, g: Float32Array | null): number[] => {
    const sums = new Float64Array(Math.ceil(out.length / CHUNK));
    k.addSquares(out, g, CHUNK, sums);
    return Array.from(sums);
  };

  /**
   * out = Σ grads in rank order, and the per-CHUNK sums of squares of out, in as few passes as
   * the rank count allows: the last addition and the squares share one loop.
   */
  const sumInto = (out: Float32Array, start: number, ranks: number[], continuing: boolean): number[] => {
    const len = out.length;
    // A machine none of whose ranks had rows this step adds zeros to the machines' sum.
    if (!continuing && ranks.length === 0) {
      out.fill(0);
      return addSquares(out, null);
    }
    // gradsOf may reuse tmp: the first rank is copied into out before the next is read.
    if (!continuing) out.set(gradsOf(ranks[0]!, start, len));
    const rest = continuing ? ranks : ranks.slice(1);
    for (let r = 0; r < rest.length; r++) {
      const g = gradsOf(rest[r]!, start, len);
      if (r < rest.length - 1) k.add(out, g);
      else return addSquares(out, g);
    }
    return addSquares(out, null);
  };

  const applyAndPublish = (gs: Float32Array, start: number, end: number, lr: number, t: number): void => {
    const w = weights.subarray(start, end);
    rule.apply(
      w,
      gs,
      slots.map((s) => s.subarray(start, end)),
      lr,
      t,
    );
    if (ema) {
      const e = ema.subarray(start, end);
      const keep = 1 - emaDecayAt(shared.emaDecay, t);
      for (let i = 0; i < e.length; i++) e[i]! -= keep * (e[i]! - w[i]!);
    }
    if (!inPlace) slab.write(shared.slab.weights + start * 4, w);
  };

  return (task) => {
    const len = task.end - task.start;
    if (g.length < len) g = new Float32Array(len);
    const gs = g.subarray(0, len);
    const sum = gradSum.subarray(task.start, task.end);
    switch (task.kind) {
      case 'accumulate': {
        const g = gradsOf(task.rank, task.start, len);
        if (task.first) sum.set(g);
        else k.add(sum, g);
        return [];
      }
      case 'fused': {
        const sq = sumInto(sum, task.start, task.ranks, task.continuing);
        applyAndPublish(sum, task.start, task.end, task.lr, task.t);
        return sq;
      }
      case 'sum':
        return sumInto(sum, task.start, task.ranks, task.continuing);
      case 'norm':
        return addSquares(sum, null);
      case 'apply': {
        const src = sum;
        for (let i = 0; i < len; i++) gs[i] = src[i]! * task.scale;
        applyAndPublish(gs, task.start, task.end, task.lr, task.t);
        return [];
      }
    }
  };
}
