// The coordinator's training loop. Set-up up to step 0 is train-setup.ts's (the workers' session
// session.ts's); each step, read top to bottom:
//   a) plan      the step's B sample indices (this machine's part), split into shards differing by <= 1
//   b) stage     each shard's rows into its rank's input buffer in the slab
//   c) dispatch  `step` to every rank with samples     d) gather their `grads` replies
//                (a rank that dies or stalls is restarted, or dropped, and the step runs again;
//                the ranks that arrive first, in rank order, are summed while others compute)
//   e) reduce    Σ grads in rank order, (clip,) optimizer update of the master weights, new
//                weights into the slab; non-trainables averaged by shard size; EMA
//                (c to e: train-step.ts)
//   f) publish   weightsVersion++ (stateVersion++ if non-trainables changed): each worker
//                reloads what changed before its next step
//   g) log / eval / checkpoint at their intervals (steps or epochs: train-figures.ts,
//      train-intervals.ts); after an evaluation, the best checkpoint, early stopping and the
//      plateau schedule (eval-watch.ts); the library API's callbacks; stop here after Ctrl-C, the
//      API's AbortSignal or a callback's request, or when early stopping says so
// The end -- stopped, ended or failed -- is train-end.ts's; the result, train-result.ts's.
import { performance } from 'node:perf_hooks';
import type { Config } from '../config/types.ts';
import type { Progress } from './console/progress.ts';
import type { RunDirClaim } from './run/run-dir.ts';
import { StepDeadline } from './engine/step-deadline.ts';
import { byApi, bySignal, endRun, failedRun, sayLoopDone, stopAsked } from './train-end.ts';
import { newWindow, reportStep } from './train-figures.ts';
import { evalAndCheckpointIfDue } from './train-intervals.ts';
import type { TrainResult } from './train-result.ts';
import { setUpRun, type TrainOptions } from './train-setup.ts';
import { stagedBatches } from './staged-batches.ts';
import { agreeOnStep, finishStep, gatherStep, skipStep } from './train-step.ts';

export type { TrainResult } from './train-result.ts';
export type { TrainOptions } from './train-setup.ts';

export async function train(cfg: Config, out: Progress, opts: TrainOptions = {}): Promise<TrainResult> {
  // The run directory is claimed (locked, and checked for another run) once setup reaches it;
  // released on every way out.
  const claim: { held: RunDirClaim | null } = { held: null };
  try {
    return await trainClaimed(cfg, out, opts, claim);
  } finally {
    claim.held?.release();
  }
}

async function trainClaimed(cfg: Config, out: Progress, opts: TrainOptions, claim: { held: RunDirClaim | null }): Promise<TrainResult> {
  // ---- setup (train-setup.ts): a run that ends before step 0 gives its result there ----------
  const setup = await setUpRun(cfg, out, opts, claim);
  if (setup.result) return setup.result;
  const run = setup.run;
  const { s, plan, hooks, metrics, skippedSteps, state: st } = run;
  const deadline = new StepDeadline(cfg.reliability);
  const staged = stagedBatches(run);
  run.signals.onStopNow(() => s.group.killAll());
  const window = newWindow();
  const loopAt = performance.now();
  try {
    for (let step = run.startStep; step < plan.totalSteps && !(bySignal(run) || byApi(run)) && !st.stopped; step++) {
      const t0 = performance.now();
      // ---- a) plan: the batch's rows (made on demand: made by now, the next ones started; a bad one left out)
      st.epoch = plan.batchAt(step).epoch;
      const fed = await staged.ready(step);
      if (!fed) break; // a signal while it waited for its rows: the stop below, as after a step
      const n = fed.n; // the global batch: on several machines, this one stages its own part (fed.indices)
      const planned = staged.shards(fed.indices.length);
      // ---- b) stage (usually done already: the previous step staged this batch) -------------
      if (!staged.matches(step, planned)) staged.stage(step, fed.indices, planned);
      const t1 = performance.now();
      // ---- c) dispatch + d) gather (train-step.ts); meanwhile the next batch is staged ---------
      const { replies, early, next, shards } = await gatherStep(run, step, fed, planned, staged, deadline);
      const t2 = performance.now();
      deadline.record(t2 - t1);
      const agreed = await agreeOnStep(run, step, replies);
      st.lastLoss = agreed.lossSum / n;
      // ---- e) reduce + apply (not when a rank's loss or gradient is NaN or infinite) ---------
      const skip = (what: string, bad: number[]) => skipStep(run, step, what, bad);
      const done = await finishStep(s, step, n, shards, replies, early, next, agreed, skip, run.watch.baseLr(), step - skippedSteps.length);
      if (done === null) {
        st.completed = step + 1;
        // The weights did not change, but an evaluation or checkpoint due at this step still
        // happens: a skipped step must not stretch the interval to the next checkpoint.
        st.stopped = await evalAndCheckpointIfDue(run);
        await hooks.endOfStep(st.completed, null, st.completed % plan.stepsPerEpoch === 0 ? window.flushEpoch(st.completed, st.epoch, NaN, NaN) : null);
        continue;
      }
      const { reduced, lr, stateChanged } = done;
      // ---- f) publish ------------------------------------------------------------------------
      s.weightsVersion++;
      if (stateChanged) s.stateVersion++;
      st.completed = step + 1;
      st.samplesTrained += n;
      const t3 = performance.now();
      // ---- g) log / eval / checkpoint --------------------------------------------------------
      reportStep(run, window, replies, n, lr, reduced.gradNorm, { t0, t1, t2, t3, wait: fed.wait });
      st.stopped = await evalAndCheckpointIfDue(run);
      // Keep this last in the step: the API's callbacks get the step's figures, its evaluations
      // and checkpoints, then the epoch's figures when it ended one.
      await hooks.endOfStep(
        st.completed,
        window.lastStep(st.completed, st.epoch, lr, reduced.gradNorm),
        st.completed % plan.stepsPerEpoch === 0 ? window.flushEpoch(st.completed, st.epoch, lr, reduced.gradNorm) : null,
      );
    }
    sayLoopDone(run, loopAt);
    // ---- end (train-end.ts): stopped by a signal or the API, else evaluate and save ------------
    return (await stopAsked(run)) ?? (await endRun(run));
  } catch (err) {
    throw failedRun(run, err);
  } finally {
    hooks.dispose();
    metrics.close();
    await s.close();
  }
}
