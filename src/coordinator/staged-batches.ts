// The batches of the training loop as they go into the workers' input slots: each step's rows
// from the input feed (this machine's part of the batch, made ready: input-feed.ts), split over
// this machine's active workers as shard.ts splits a batch, staged into the step's slot (steps
// alternate between two) once; a batch staged ahead while the previous step computed is not
// staged again, nor one whose rows a pipeline has not made yet (the loop stages it once `ready`
// says they are).
import type { Shard } from '../shared/shard.ts';
import { assignShards } from '../shared/shard.ts';
import { loopLimits } from './data-wait.ts';
import { inputFeed } from './input-feed.ts';
import { machineRows } from './machine-rows.ts';
import type { Run } from './train-setup.ts';

export type StagedBatches = ReturnType<typeof stagedBatches>;

export function stagedBatches(run: Run) {
  const { s, plan, trainSet: ds, cfg, cluster } = run;
  const tag = (step: number, shards: Shard[]) => `${step}|${shards.map((x) => `${x.rank}:${x.start}-${x.end}`).join(',')}`;
  const slotOf = (step: number) => (step % 2) as 0 | 1;
  // Only a pipeline with data.onBadSample: skip can leave rows out, which the machines then agree on.
  const machine = machineRows(cluster, ds.pipeline !== undefined && cfg.data.onBadSample === 'skip');
  const feed = inputFeed(ds, plan, cfg.data.prefetch, machine, run.badSamples.record, loopLimits(cfg.reliability, [run.signals, run.hooks], cluster.size));
  const shards = (rows: number) => assignShards(rows, s.group.active);
  const stage = (step: number, indices: Uint32Array, split: Shard[]) => {
    if (feed.canStage(step)) s.stager.stage(ds, indices, split, slotOf(step), tag(step, split), plan.batchAt(step).epoch);
  };
  return {
    ready: (step: number) => feed.ready(step),
    /** This machine's rows split over its active workers (after a recovery too). */
    shards,
    matches: (step: number, split: Shard[]) => s.stager.holds(slotOf(step), tag(step, split)),
    stage,
    /** Stages step's batch ahead, as planned (a row left out later makes the loop stage it again). */
    stageAhead(step: number) {
      const rows = feed.part(step);
      stage(step, rows, shards(rows.length));
    },
  };
}
