// What the loop does at its intervals and at its end: an evaluation (logged, printed and given to
// the library API's callbacks) and a checkpoint (written by rank 0, the oldest pruned).
import { evalBatchSize } from '../config/batch-sizes.ts';
import { checkpointDir, pruneCheckpoints, writeCheckpoint } from './run/checkpoint.ts';
import { dataRecord } from '../data/data-record.ts';
import type { StopRecord } from './run/trainer-state.ts';
import { evaluate, outputFields } from './engine/evaluate.ts';
import type { EvalResult } from './engine/eval-result.ts';
import type { EvalLine } from '../shared/metrics-lines.ts';
import { metricsInline } from './metrics/format.ts';
import type { Run } from './train-setup.ts';

/** Writes the checkpoint of step `completed` (rank 0; other machines only name its directory). */
export function saveCheckpoint(run: Run, completed: number, stopped: StopRecord | null = null): string {
  const { cfg, s, plan, watch } = run;
  const dir = checkpointDir(cfg.runDir, completed);
  if (!run.lead) return dir;
  run.state.lastSaved = completed;
  writeCheckpoint(
    dir,
    s.group.layout,
    {
      format: 'mgpu-train-checkpoint',
      version: 1,
      step: completed,
      epoch: Math.floor(completed / plan.stepsPerEpoch),
      seed: cfg.training.seed,
      batchSize: cfg.training.batchSize,
      workers: run.cluster.workers.reduce((a, b) => a + b, 0),
      backend: s.group.backend,
      optimizer: cfg.optimizer,
      ema: cfg.training.ema,
      skippedSteps: run.skippedSteps,
      restarts: run.recovery.restarts,
      variables: s.group.layout.variables,
      config: cfg,
      savedAt: new Date().toISOString(),
      monitors: watch.states(),
      stopped,
      data: dataRecord(run.trainSet, run.evalSet),
    },
    s.master,
    s.slots,
    s.ema,
    watch.snapshots(),
    run.modelFiles,
  );
  pruneCheckpoints(cfg.runDir, cfg.checkpoint.keep);
  run.hooks.checkpointed({ step: completed, epoch: Math.floor(completed / plan.stepsPerEpoch), path: dir });
  return dir;
}

/** Evaluates the eval set (a failed rank is recovered and the evaluation runs again), then logs and prints it. */
export async function runEval(run: Run, step: number, epoch: number): Promise<EvalResult> {
  const { cfg, s } = run;
  let r: EvalResult;
  for (;;) {
    try {
      // An eval chunk has stepTimeout, as a step has before it is timed (chunks differ in size).
      const go = () => evaluate(s, run.evalSet!, evalBatchSize(cfg), cfg.loss, cfg.eval.topK, cfg.reliability.stepTimeout * 1000, run.evalMetrics);
      r = cfg.eval.useEma ? await s.withWeights(s.ema!, go) : await go();
      break;
    } catch (err) {
      await run.recovery.recover(err, step);
    }
  }
  const line: EvalLine = {
    type: 'eval',
    step,
    epoch,
    samples: r.samples,
    loss: r.loss,
    accuracy: r.accuracy,
    top_k: r.topK,
    k: r.k,
    mae: r.mae,
    ...(r.metrics ? { metrics: r.metrics } : {}),
    ...outputFields(r),
  };
  run.metrics.write(line);
  run.hooks.evaluated(line);
  run.out.line(`eval @ step ${step}${cfg.eval.useEma ? ' (EMA weights)' : ''}: loss ${r.loss.toFixed(4)} ${evalFigures(r)} (${r.samples} samples)`);
  return r;
}

/**
 * The figures an evaluation prints after its loss. With config metrics, those are what is
 * printed; without, the shipped figures. Several outputs: each output's loss, then the config's
 * metrics (per output), or without them each output's shipped figures.
 */
function evalFigures(r: EvalResult): string {
  const fields = outputFields(r);
  return r.outputs
    ? r.metrics
      ? metricsInline({ ...Object.fromEntries(Object.entries(fields).filter(([key]) => key.startsWith('loss.'))), ...r.metrics }, r.k)
      : metricsInline(fields, r.k)
    : r.metrics
      ? metricsInline(r.metrics, r.k)
      : r.accuracy === null
        ? `mae ${r.mae.toFixed(4)}`
        : `accuracy ${(100 * r.accuracy).toFixed(2)}%` + (r.topK === null ? '' : ` top-${r.k} ${(100 * r.topK).toFixed(2)}%`);
}

/**
 * After a step (not the last: the end evaluates and checkpoints anyway). Every machine evaluates
 * at the same steps and gets the same sums: all stop alike. A run stopped here by early stopping
 * gets its checkpoint at the end.
 */
export async function evalAndCheckpointIfDue(run: Run): Promise<StopRecord | null> {
  const { cfg, plan, state } = run;
  const completed = state.completed;
  if (completed === plan.totalSteps) return null;
  const stop =
    run.evalSet && plan.due(cfg.eval.every, completed) ? run.watch.observe(completed, state.epoch, await runEval(run, completed, state.epoch), false) : null;
  if (plan.due(cfg.checkpoint.every, completed) && !stop) saveCheckpoint(run, completed);
  return stop;
}
