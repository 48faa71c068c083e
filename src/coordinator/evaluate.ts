// Evaluation over a whole dataset, sharded over the workers in chunks of the eval batch.
// Workers return sums, so the totals are exact: every sample counted once, weighted by count.
import type { LossName } from '../shared/config/types.ts';
import type { EvaluatedMessage } from '../shared/protocol.ts';
import { shardRanges } from '../shared/shard.ts';
import type { Dataset } from './data/dataset.ts';
import type { Session } from './session.ts';

export interface EvalResult {
  samples: number;
  loss: number; // mean per-sample loss (regularisation not included)
  accuracy: number | null; // null for losses without classes (mean squared error)
  mae: number;
}

export async function evaluate(s: Session, ds: Dataset, batch: number, loss: LossName): Promise<EvalResult> {
  const totals = { n: 0, lossSum: 0, correct: 0, abs: 0 };
  let id = 0;
  for (let start = 0; start < ds.count; start += batch) {
    const size = Math.min(batch, ds.count - start);
    const indices = new Uint32Array(size).map((_, i) => start + i);
    const ranges = shardRanges(size, s.group.size);
    s.stager.stage(ds, indices, ranges, 0);
    const ranks = ranges.flatMap(([a, b], r) => (b > a ? [r] : []));
    const chunk = id++;
    const replies = await s.group.all<EvaluatedMessage>((r) => ({
      type: 'eval', id: chunk, n: ranges[r][1] - ranges[r][0], slot: 0, weightsVersion: s.weightsVersion,
    }), 'eval', ranks);
    for (const m of replies) {
      totals.n += m.n;
      totals.lossSum += m.lossSum;
      totals.correct += m.correct;
      totals.abs += m.absErrorSum;
    }
  }
  return {
    samples: totals.n,
    loss: totals.lossSum / totals.n,
    accuracy: loss === 'meanSquaredError' ? null : totals.correct / totals.n,
    mae: totals.abs / totals.n,
  };
}
