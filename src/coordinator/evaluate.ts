// Evaluation and prediction over a whole dataset, sharded over the active workers in chunks.
// Evaluation workers return sums, so totals are exact: every sample counted once, weighted by
// count. Prediction workers write their rows to their output buffers, read back in input order.
import type { LossName } from '../shared/config/types.ts';
import { sizeOf } from '../shared/layout.ts';
import type { EvaluatedMessage, PredictedMessage } from '../shared/protocol.ts';
import type { Shard } from '../shared/shard.ts';
import type { Dataset } from './data/rows.ts';
import type { Session } from './session.ts';

export interface EvalResult {
  samples: number;
  loss: number; // mean per-sample loss (regularisation not included)
  accuracy: number | null; // null for losses without classes (mean squared error)
  topK: number | null; // top-k accuracy; null without classes or with k >= classes
  k: number;
  mae: number;
}

/** Runs `visit` over consecutive chunks of the dataset, each staged and split over the active ranks. */
async function chunks(s: Session, ds: Dataset, batch: number, visit: (shards: Shard[], start: number, chunk: number) => Promise<void>): Promise<void> {
  let chunk = 0;
  for (let start = 0; start < ds.count; start += batch) {
    const size = Math.min(batch, ds.count - start);
    const indices = new Uint32Array(size).map((_, i) => start + i);
    const shards = s.shards(size);
    s.stager.stage(ds, indices, shards, 0);
    await visit(shards, start, chunk++);
  }
}

/** `deadlineMs`: how long each chunk may take before a worker that has not answered is called stalled. */
export async function evaluate(s: Session, ds: Dataset, batch: number, loss: LossName, k: number, deadlineMs: number): Promise<EvalResult> {
  const t = { n: 0, lossSum: 0, correct: 0, abs: 0, topK: 0 };
  const classes = sizeOf(s.group.layout.outputShape.slice(1) as number[]);
  await chunks(s, ds, batch, async (shards, _start, id) => {
    const byRank = new Map(shards.map((sh) => [sh.rank, sh]));
    const replies = await s.group.all<EvaluatedMessage>((r) => ({
      type: 'eval', id, n: byRank.get(r)!.end - byRank.get(r)!.start, slot: 0, weightsVersion: s.weightsVersion, stateVersion: s.stateVersion, topK: k,
    }), 'eval', shards.map((sh) => sh.rank), deadlineMs);
    for (const m of replies) {
      t.n += m.n;
      t.lossSum += m.lossSum;
      t.correct += m.correct;
      t.abs += m.absErrorSum;
      t.topK += m.topKCorrect;
    }
  });
  // Several machines: each evaluated its workers' rows of every chunk; the sums are added up.
  const sums = new Float64Array([t.n, t.lossSum, t.correct, t.abs, t.topK]);
  await s.cluster.sum(sums, 'the evaluation sums');
  [t.n, t.lossSum, t.correct, t.abs, t.topK] = sums as unknown as number[];
  const classed = loss !== 'meanSquaredError';
  return {
    samples: t.n,
    loss: t.lossSum / t.n,
    accuracy: classed ? t.correct / t.n : null,
    topK: classed && loss !== 'binaryCrossentropy' && classes > k ? t.topK / t.n : null,
    k,
    mae: t.abs / t.n,
  };
}

/** The model's outputs for every row of `ds`, in input order: float32 [count, ...outputShape]. */
export async function predict(s: Session, ds: Dataset, batch: number, deadlineMs: number): Promise<{ values: Float32Array; shape: number[] }> {
  const outShape = s.group.layout.outputShape.slice(1) as number[];
  const per = sizeOf(outShape);
  const values = new Float32Array(ds.count * per);
  await chunks(s, ds, batch, async (shards, start, id) => {
    const byRank = new Map(shards.map((sh) => [sh.rank, sh]));
    await s.group.all<PredictedMessage>((r) => ({
      type: 'predict', id, n: byRank.get(r)!.end - byRank.get(r)!.start, slot: 0, weightsVersion: s.weightsVersion, stateVersion: s.stateVersion,
    }), 'predict', shards.map((sh) => sh.rank), deadlineMs);
    for (const sh of shards) {
      s.slab.read(s.layout.output[sh.rank], values.subarray((start + sh.start) * per, (start + sh.end) * per));
    }
  });
  return { values, shape: [ds.count, ...outShape] };
}
