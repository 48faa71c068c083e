// What train() refuses once the workers have built the model (before the first step), and the
// bound on skipped steps it checks as it goes: each one a run that could only fail or mislead.
import type { Config } from '../../config/types.ts';
import { ConfigError, MgpuError } from '../../shared/errors.ts';
import { plural } from '../console/progress.ts';

/**
 * A model with no trainable weights (every layer frozen, or none with weights) has nothing to
 * train: refused before the first step, which could only fail (and be retried) in every worker.
 */
export function checkSomethingToTrain(cfg: Config, flat: { trainable: number; total: number }): void {
  if (flat.trainable > 0) return;
  const what = cfg.model.module ?? cfg.model.json ?? (cfg.model.net ? `model.net ${cfg.model.net.name}` : 'the model');
  throw new MgpuError(
    'E_MODEL',
    `${what}: the model has no trainable weights (${flat.total.toLocaleString('en-US')} non-trainable parameters): there is nothing to train`,
    { hint: 'make a layer trainable (layer.trainable = true), or use mgpu-train eval / predict for a model kept as it is' },
  );
}

/**
 * training.accumulateSteps splits each worker's shard into that many micro-batches: more than the
 * smallest shard of a full batch holds rows (batches split unevenly: some shards are a row
 * short) would leave a micro-batch empty. (The short last batch of an epoch may still give a
 * shard fewer rows than micro-batches: that shard runs one micro-batch per row.)
 */
export function checkMicroBatchesFitShard(cfg: Config, workers: number): void {
  const k = cfg.training.accumulateSteps;
  const B = cfg.training.batchSize;
  const smallest = Math.max(1, Math.floor(B / workers)); // a rank past B has no rows at all, and no micro-batch
  if (k <= smallest) return;
  throw new ConfigError(
    'training.accumulateSteps',
    `${k} micro-batches per worker, but batchSize ${B} over ${plural(workers, 'worker')} gives the smallest shard ${B < workers ? 'with rows 1 row (and some workers none)' : plural(smallest, 'row')}: a micro-batch would be empty`,
    `set training.accumulateSteps to at most ${smallest}, or raise training.batchSize to at least ${k * workers}`,
  );
}

/**
 * With onNonFinite: skip, a run whose steps are mostly skipped is not training: past
 * reliability.maxSkippedFraction of its steps it stops (E_NONFINITE, with a checkpoint of the
 * last completed step; the step that tipped it over is not counted, so a resume runs it again).
 */
export function checkSkipBound(cfg: Config, skipped: number, totalSteps: number, what: string): void {
  const bound = cfg.reliability.maxSkippedFraction;
  if (skipped <= bound * totalSteps) return;
  throw new MgpuError(
    'E_NONFINITE',
    `${what}: ${skipped} of the run's ${totalSteps} steps would be skipped, more than reliability.maxSkippedFraction (${bound}) allows`,
    { hint: 'lower optimizer.learningRate, set training.clipNorm, or check the data for extreme values; raise reliability.maxSkippedFraction to skip more' },
  );
}
