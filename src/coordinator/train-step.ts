// One step's dispatch, gather, agreement and reduce (steps c to e of train.ts's loop); the
// batches' staging is staged-batches.ts's. The order of the awaits is the step's overlap: the next
// batch is staged while this one computes, and the replies that arrive first are summed while
// others compute.
import os from 'node:os';
import { MgpuError } from '../shared/errors.ts';
import type { GradsMessage } from '../shared/protocol.ts';
import type { Shard } from '../shared/shard.ts';
import { plural } from './console/progress.ts';
import { ArrivalSum } from './engine/reduce/arrival-sum.ts';
import { averageState } from './engine/reduce/average-state.ts';
import { gradientCombine } from './engine/overlapped-allreduce.ts';
import type { ReduceResult } from './engine/reduce/reduce-pool.ts';
import { learningRateAt } from './engine/schedules.ts';
import type { Session } from './engine/session.ts';
import { stageAhead, type StageAhead } from './engine/stage-ahead.ts';
import type { StepDeadline } from './engine/step-deadline.ts';
import type { FedRows } from './input-feed.ts';
import { checkSkipBound } from './run/train-checks.ts';
import type { StagedBatches } from './staged-batches.ts';
import type { Run } from './train-setup.ts';

/** A step's gathered replies, the sum begun as they arrived, and the next batch's staging. */
export interface Gathered {
  replies: GradsMessage[];
  early: ArrivalSum;
  next: StageAhead;
  shards: Shard[]; // as split when the replies came (a rank retired meanwhile changes them)
}

/**
 * c) dispatch + d) gather; meanwhile the next batch goes into the other buffer. A rank that dies
 * or stalls is recovered (restarted, or retired) and the step runs again on the new shards.
 */
export async function gatherStep(
  run: Run,
  step: number,
  fed: FedRows, // this machine's rows of the step; fed.n: the global batch
  shards: Shard[],
  staged: StagedBatches,
  deadline: StepDeadline,
): Promise<Gathered> {
  const { cfg, s, plan } = run;
  const n = fed.n;
  const slot = (step % 2) as 0 | 1;
  // With a worker on every core (simulated GPUs), the coordinator's own work waits for a core
  // that a worker has left.
  const spareCore = (): boolean => s.group.active.length < os.availableParallelism();
  for (;;) {
    const early = new ArrivalSum(
      s.pool,
      shards.map((sh) => sh.rank),
    );
    // The next batch is staged while this one computes: at once when a core is spare, else
    // when the first gradient arrives (that worker's core is free then): the coordinator
    // must not take a core from a computing worker.
    const ahead = stageAhead(step + 1 < plan.totalSteps ? () => staged.stageAhead(step + 1) : null);
    const gathering = s.group.all<GradsMessage>(
      (r) => {
        const sh = shards.find((x) => x.rank === r)!;
        return {
          type: 'step',
          step,
          n: sh.end - sh.start,
          batch: n,
          slot,
          weightsVersion: s.weightsVersion,
          stateVersion: s.stateVersion,
          micro: cfg.training.accumulateSteps,
        };
      },
      `step ${step + 1}`, // every step number said is 1-based, as the train line of its batch
      shards.map((sh) => sh.rank),
      deadline.ms(),
      (reply, rank) => {
        early.onReply(reply, rank);
        if (!spareCore()) ahead.run();
      },
    );
    if (spareCore()) ahead.run();
    try {
      return { replies: await gathering, early, next: ahead, shards };
    } catch (err) {
      await early.settle().catch(() => {}); // nothing may still write the sum when the step reruns
      await run.recovery.recover(err, step + 1);
      shards = staged.shards(fed.indices.length);
      staged.stage(step, fed.indices, shards);
    }
  }
}

/**
 * What every machine must agree on: the loss, ranks with a non-finite result, the ranks that
 * changed their BatchNorm statistics, stop requests (a no-op on one machine). The stop requests
 * agreed go into the run's state; the sums are returned.
 */
export async function agreeOnStep(
  run: Run,
  step: number,
  replies: GradsMessage[],
): Promise<{ lossSum: number; nonFinite: number; stateChanged: number; ranks: number }> {
  const { cluster } = run;
  const agreed = new Float64Array([
    replies.reduce((a, m) => a + m.lossSum, 0),
    replies.filter((m) => !m.finite).length,
    replies.filter((m) => m.stateChanged).length,
    replies.length,
    run.signals.requested() ? 1 : 0,
    run.hooks.requested() ? 1 : 0,
  ]);
  await cluster.arrive(step + 1); // rank 0 names a machine that does not get here in time
  await cluster.sum(agreed, `step ${step + 1}: the agreement on the loss`);
  run.state.signalAgreed = agreed[4]! > 0;
  run.state.apiStopAgreed = agreed[5]! > 0;
  return { lossSum: agreed[0]!, nonFinite: agreed[1]!, stateChanged: agreed[2]!, ranks: agreed[3]! };
}

/**
 * The end of a gathered step: the next batch's staging is checked, then the step is reduced and
 * applied, or skipped when a rank's loss or gradient is not finite (reliability.onNonFinite:
 * skip; `stop` throws E_NONFINITE). Returns null for a skipped step. On every path -- reduced,
 * skipped, stopped or failed -- the sums `early` began as the replies arrived are settled before
 * it returns: with the reduce in the thread pool, an accumulate task still running would write
 * the sum while the next step (or this one, run again) builds it anew.
 */
export async function finishStep(
  s: Session,
  step: number,
  n: number,
  shards: Shard[],
  replies: GradsMessage[],
  early: ArrivalSum,
  next: StageAhead,
  everywhere: { nonFinite: number; stateChanged: number; ranks: number },
  onSkip: (what: string, ranks: number[]) => void,
  baseLr = s.cfg.optimizer.learningRate, // the plateau schedule's rate, when it has lowered it
  updatesBefore = step, // updates applied before this step: steps less the skipped ones
): Promise<{ reduced: ReduceResult; lr: number; stateChanged: boolean } | null> {
  const cfg = s.cfg;
  const c = s.cluster;
  try {
    next.check();
    const bad = replies.filter((m) => !m.finite).map((m) => m.rank);
    if (everywhere.nonFinite > 0) {
      const mine = bad.length ? `rank${bad.length > 1 ? 's' : ''} ${bad.join(', ')}` : '';
      const what =
        c.size === 1
          ? `step ${step + 1}: non-finite loss or gradient from ${mine}`
          : `step ${step + 1}: non-finite loss or gradient from ${plural(everywhere.nonFinite, 'worker')} of the cluster${mine ? ` (here: ${mine} on ${c.where(c.rank)})` : ''}`;
      if (cfg.reliability.onNonFinite === 'stop') {
        throw new MgpuError('E_NONFINITE', what, { hint: 'lower optimizer.learningRate, set training.clipNorm, or set reliability.onNonFinite: skip' });
      }
      onSkip(what, bad);
      return null;
    }
    const lr = learningRateAt(baseLr, cfg.schedule, step);
    // The update rules' 1-based update count (Adam's bias correction, EMA's warm-up): a skipped
    // step applied no update, as tfjs's optimizer counts only applyGradients calls.
    const t = updatesBefore + 1;
    const { remaining, continuing } = await early.settle();
    const reduced =
      c.size === 1 ? await s.pool.run(remaining, continuing, lr, t) : await s.pool.runCombined(remaining, continuing, lr, t, gradientCombine(c, step + 1));
    // Non-trainables that the step changed (BatchNorm statistics); frozen ones never are.
    const stateChanged = everywhere.stateChanged;
    if (stateChanged !== 0 && stateChanged !== everywhere.ranks) {
      throw new MgpuError('E_INTERNAL', `step ${step + 1}: ${stateChanged} of ${everywhere.ranks} ranks changed their non-trainable weights`);
    }
    if (stateChanged)
      await averageState(
        { flat: s.flat, slab: s.slab, layout: s.layout, master: s.master, ema: s.ema, emaDecay: s.cfg.training.ema, cluster: s.cluster },
        shards,
        n,
        t,
      );
    return { reduced, lr, stateChanged: stateChanged !== 0 };
  } finally {
    await early.settle().catch(() => {}); // a no-op once reduced; a failed sum's error is the reduce's to report
  }
}

/** A step skipped for a non-finite loss or gradient (onNonFinite: skip): within the bound, counted, logged and said. */
export function skipStep(run: Run, step: number, what: string, bad: number[]): void {
  const { skippedSteps } = run;
  checkSkipBound(run.cfg, skippedSteps.length + 1, run.plan.totalSteps, what);
  skippedSteps.push(step + 1); // 1-based, as the skip line
  run.metrics.write({ type: 'skip', step: step + 1, ranks: bad, message: what, action: 'skipped' });
  run.out.line(`${what}; step skipped (${skippedSteps.length} so far)`);
}
