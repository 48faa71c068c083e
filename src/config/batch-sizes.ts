// The batch sizes a config implies, computed here alone: the evaluation's (eval.batchSize, by
// default training.batchSize) and the largest batch a rank's input buffer must hold.
import type { Config } from './types.ts';

/** The rows evaluated (or predicted) per chunk: eval.batchSize, or training.batchSize when it is null. */
export function evalBatchSize(cfg: Config): number {
  return cfg.eval.batchSize ?? cfg.training.batchSize;
}

/** The largest batch a run ships to the workers: a training step's or an evaluation chunk's. */
export function largestBatchSize(cfg: Config): number {
  return Math.max(cfg.training.batchSize, evalBatchSize(cfg));
}
