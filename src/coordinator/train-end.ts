// The ways a run that started its steps ends: stopped (a signal, the library API), ended (the last
// step, or early stopping: the final evaluation, checkpoint and model), or failed (what it trained
// kept in a checkpoint when the failure allows a resume). Each gives its TrainResult here.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { isResumable, MgpuError } from '../shared/errors.ts';
import { writeLayersModel } from '../shared/model-files.ts';
import { describeStop, type StopRequest } from './run/callbacks.ts';
import { checkpointDir } from './run/checkpoint.ts';
import type { EvalResult } from './engine/eval-result.ts';
import { howToLoad } from './run/model-load-hint.ts';
import type { Session } from './engine/session.ts';
import { timeLine } from './train-figures.ts';
import { runEval, saveCheckpoint } from './train-intervals.ts';
import { bestOf, trainResult, type TrainResult } from './train-result.ts';
import type { Run } from './train-setup.ts';

/** A stop the library API asked for on another machine (its callbacks run on rank 0 alone). */
const OTHER_MACHINE_STOP: StopRequest = { by: 'cluster', reason: 'another machine of the run asked to stop' };

/** A signal asked to stop (on several machines: any machine's, as agreed after the step). */
export function bySignal(run: Run): boolean {
  return run.cluster.size > 1 ? run.state.signalAgreed : run.signals.requested() !== null;
}

/** The library API asked to stop (on several machines: any machine's, as agreed after the step). */
export function byApi(run: Run): boolean {
  return run.cluster.size > 1 ? run.state.apiStopAgreed : run.hooks.requested() !== null;
}

/** The loop's figures once its steps are done: how long they took, and how many were skipped. */
export function sayLoopDone(run: Run, loopAt: number): void {
  const { out, state, skippedSteps } = run;
  out.done();
  run.badSamples.sayTotal();
  if (state.completed > run.startStep)
    out.line(timeLine(state.completed - run.startStep, state.samplesTrained, performance.now() - loopAt, loopAt - run.calledAt));
  if (skippedSteps.length > 0) {
    out.line(
      `warning: ${skippedSteps.length} of ${state.completed} steps were skipped (a non-finite loss or gradient; reliability.onNonFinite: skip), so the weights had ${state.completed - skippedSteps.length} updates; the skip lines of metrics.jsonl name each step and rank`,
      true,
    );
  }
}

/**
 * A run stopped by a signal or the library API: its checkpoint, the stop line (and metrics line),
 * its result; null when nothing asked to stop. Another machine's signal, here without one of its
 * own, reads as SIGTERM. The API's stop after the last step changes nothing: the run ends as planned.
 */
export async function stopAsked(run: Run): Promise<TrainResult | null> {
  const { cfg, out, state, plan } = run;
  const completed = state.completed;
  const interrupted = !state.stopped && bySignal(run) ? (run.signals.requested() ?? 'SIGTERM') : null;
  const requested = !state.stopped && !interrupted && byApi(run) && completed < plan.totalSteps ? (run.hooks.requested() ?? OTHER_MACHINE_STOP) : null;
  if (!interrupted && !requested) return null;
  // A stop right after an interval checkpoint has its checkpoint already.
  const dir = state.lastSaved === completed ? checkpointDir(cfg.runDir, completed) : completed > run.startStep ? saveCheckpoint(run, completed) : null;
  const saved = dir ? `; checkpoint in ${dir} (continue with ${run.resumeHint ?? '--resume'})` : '';
  const by = interrupted ?? describeStop(requested!);
  // Stopped while its first step waited (for rows, a worker): "after step 0" names a step it never trained.
  const when =
    completed === 0
      ? 'before step 1 finished: no step was trained, so there is no checkpoint; run the same command to start again'
      : `after step ${completed}${saved}`;
  out.line(`stopped by ${by} ${when}`, true);
  // In metrics.jsonl too: a terminal that went away (SIGHUP) may have taken the line above.
  run.metrics.write({
    type: 'stop',
    step: completed,
    ranks: [],
    message: `stopped by ${by}`,
    action: saved ? `checkpoint step-${completed}` : 'no step since the start: no checkpoint',
  });
  await run.hooks.flush();
  return runResult(run, { interrupted, stopRequest: requested });
}

/** The end: the final evaluation, the same weights on every machine, the last checkpoint, final/ (and final-ema/). */
export async function endRun(run: Run): Promise<TrainResult> {
  const { cfg, out, s, watch, state, lead } = run;
  const completed = state.completed;
  // A run stopped early was evaluated at this step already.
  let finalEval: EvalResult | null = null;
  if (run.evalSet && watch.last?.step === completed) {
    finalEval = watch.last.result;
  } else if (run.evalSet) {
    finalEval = await runEval(run, completed, state.epoch);
    watch.observe(completed, state.epoch, finalEval, true);
  }
  await checkSameWeights(s);
  // The checkpoint keeps the last step's weights (a run to continue); final/ may get the best ones.
  saveCheckpoint(run, completed, state.stopped);
  await run.hooks.flush(); // the API's callbacks get the final evaluation and checkpoint
  const restored = watch.restored(completed);
  const modelPath = path.join(cfg.runDir, 'final', 'model.json');
  const finalWeights = restored?.weights ?? s.master;
  const finalEma = restored ? restored.ema : s.ema;
  if (lead) {
    writeLayersModel(path.dirname(modelPath), s.group.layout, finalWeights, run.modelFiles);
    if (finalEma) writeLayersModel(path.join(cfg.runDir, 'final-ema'), s.group.layout, finalEma, run.modelFiles);
  }
  out.line(
    `model saved to ${modelPath}${finalEma ? ` (EMA weights in ${path.join(cfg.runDir, 'final-ema')})` : ''}; ${howToLoad(s.group.layout, cfg.model.customLayers ?? null)}`,
  );
  return runResult(run, {
    modelPath,
    eval: finalEval,
    weights: finalWeights.slice(),
    ema: finalEma?.slice() ?? null,
    stopped: state.stopped,
    restoredFrom: restored?.step ?? null,
  });
}

/**
 * What a failed run throws. Nothing trained is lost: after a failure that allows a resume
 * (isResumable: RESUMABLE_CODES, a data error after steps trained), the last completed step goes
 * into a checkpoint before the error, whose hint says where it is and how to continue.
 */
export function failedRun(run: Run, err: unknown): unknown {
  run.hooks.mute();
  const completed = run.state.completed;
  if (!isResumable(err, completed - run.startStep)) return err; // no step trained: nothing to resume
  run.out.done();
  const dir = saveCheckpoint(run, completed);
  return new MgpuError(err.code, err.message, {
    hint: [err.hint, `the last completed step (${completed}) is in ${dir}; continue with ${run.resumeHint ?? `--resume ${run.cfg.runDir}`}`]
      .filter(Boolean)
      .join('\n  hint: '),
    exitCode: err.exitCode,
    cause: err.cause,
  });
}

/** The result of a run that started its steps: where it got to, but for the fields given. */
function runResult(run: Run, fields: Partial<TrainResult>): TrainResult {
  const { s, state } = run;
  return trainResult(run.cfg.runDir, {
    steps: state.completed,
    finalLoss: state.lastLoss,
    weights: s.master.slice(),
    ema: s.ema?.slice() ?? null,
    skippedSteps: run.skippedSteps,
    restarts: run.recovery.restarts,
    best: bestOf(run.watch.best),
    ...fields,
  });
}

/** Several machines must end with the same weights, bit for bit: their hashes are compared. */
async function checkSameWeights(s: Session): Promise<void> {
  if (s.cluster.size === 1) return;
  const mine = createHash('sha256')
    .update(new Uint8Array(s.master.buffer, s.master.byteOffset, s.master.byteLength))
    .digest();
  const all = await s.cluster.gather(new Uint8Array(mine), 'the final weight check');
  const differ = all.findIndex((h) => !Buffer.from(h).equals(Buffer.from(all[0]!)));
  if (differ > 0) {
    throw new MgpuError('E_INTERNAL', `the machines ended with different weights: ${s.cluster.where(differ)} differs from ${s.cluster.where(0)}`, {
      hint: "the allreduce gave ranks different sums; the gradient's MPI_Iallreduce is Open MPI's coll/libnbc, whose binomial tree gives every rank rank 0's bits: leave coll_libnbc_iallreduce_algorithm at 0 or set it to 2 (not 1, the ring); coll_tuned_* settings do not reach it",
    });
  }
}
