// What train() refuses once the workers have built the model (before the first step), and the
// bound on skipped steps it checks as it goes: each one a run that could only fail or mislead.
import type { Config } from '../../config/types.ts';
import { ConfigError, MgpuError } from '../../shared/errors.ts';
import { plural } from '../console/progress.ts';
import type { BatchPlan } from '../../data/batch-plan.ts';
import { shardSizes } from '../../shared/shard.ts';

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
 * The micro-batches against the shards (`machines`: each machine's workers, in rank order), for
 * accumulation and for syncBatchNorm over several machines.
 */
export function checkMicroBatchesFitShards(cfg: Config, machines: number[], plan: Pick<BatchPlan, 'count' | 'batch' | 'dropLast'>): void {
  const workers = machines.reduce((a, b) => a + b, 0);
  checkMicroBatchesFitShard(cfg, workers);
  if (cfg.training.syncBatchNorm && machines.length > 1) checkEveryMachineHasRows(cfg, machines, workers, plan);
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
 * syncBatchNorm over several machines: every machine's relay takes part in each exchange's
 * allreduce, which it can only do for a micro-batch in which one of its workers has rows. The
 * smallest batch (an epoch's short last one) split over every worker gives the fewest rows to the
 * last machine's first worker (shards differ by at most one row, the larger on lower ranks); that
 * worker needs a row in each micro-batch.
 */
function checkEveryMachineHasRows(cfg: Config, machines: number[], workers: number, plan: Pick<BatchPlan, 'count' | 'batch' | 'dropLast'>): void {
  const smallest = plan.dropLast || plan.count % plan.batch === 0 ? plan.batch : plan.count % plan.batch;
  const first = workers - machines[machines.length - 1]!; // the last machine's first worker, globally
  const rows = shardSizes(smallest, workers)[first]!; // the split every step makes
  const k = cfg.training.accumulateSteps;
  if (rows >= k) return;
  const which = smallest === plan.batch ? `a batch of ${smallest}` : `the short last batch of each epoch (${smallest} of ${plan.count} samples)`;
  throw new ConfigError(
    'training.syncBatchNorm',
    `${which} over ${plural(workers, 'worker')} on ${machines.length} machines leaves the last machine's first worker ${plural(rows, 'row')}${k > 1 ? ` for ${k} micro-batches` : ''}: that machine could not take part in the BatchNorm statistics`,
    `set training.dropLast: true (the short last batch is not trained), or a training.batchSize for which every worker has ${k > 1 ? `${k} rows` : 'a row'}`,
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
