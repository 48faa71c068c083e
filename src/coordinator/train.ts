// The coordinator's training loop. Setup is in session.ts; each step, read top to bottom:
//   a) plan      the step's B sample indices, split into shards that differ by at most one
//   b) stage     each shard's rows into its rank's input buffer in the slab
//   c) dispatch  `step` to every rank with samples     d) gather their `grads` replies
//                (a rank that dies or stalls is restarted, or dropped, and the step runs again;
//                the ranks that arrive first, in rank order, are summed while others compute)
//   e) reduce    Σ grads in rank order, (clip,) optimizer update of the master weights, new
//                weights into the slab; non-trainables averaged by shard size; EMA
//   f) publish   weightsVersion++ (stateVersion++ if non-trainables changed): each worker
//                reloads what changed before its next step
//   g) log / eval / checkpoint at their intervals (steps or epochs); after an evaluation, the best
//      checkpoint, early stopping and the plateau schedule (eval-watch.ts); the library API's
//      callbacks; stop here after Ctrl-C, the API's AbortSignal or a callback's request, or when
//      early stopping says so
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { serializeConfig } from '../shared/config/load.ts';
import { oneLoss } from '../shared/config/loss.ts';
import type { Config } from '../shared/config/types.ts';
import { ConfigError, MgpuError, WorkerError } from '../shared/errors.ts';
import { writeFileAtomically, writeLayersModel } from '../shared/model-files.ts';
import type { GradsMessage } from '../shared/protocol.ts';
import type { Shard } from '../shared/shard.ts';
import { layoutHash, outputsPerSample } from '../shared/layout.ts';
import { BatchPlan } from './batch-plan.ts';
import { configHash, soloCluster, type Cluster } from './cluster.ts';
import {
  checkpointDir,
  findCheckpoint,
  pruneCheckpoints,
  readCheckpoint,
  readTrainerState,
  writeCheckpoint,
  type Checkpoint,
  type StopRecord,
} from './checkpoint.ts';
import { labelFiles, readLabels } from './data/classes.ts';
import { checkClassWeightsFitModel, resolveClassWeights, withClassWeights } from './data/sample-weights.ts';
import { loadSplits, type Splits } from './data/splits.ts';
import { evaluate, outputFields, type EvalResult } from './evaluate.ts';
import { checkMonitorsFitModel, EvalWatch } from './eval-watch.ts';
import { MetricsLog, type EvalLine, type TrainLine } from './metrics-log.ts';
import { metricsInline } from './metrics/format.ts';
import { loadEvalMetrics } from './metrics/index.ts';
import { plural, type Progress } from './progress.ts';
import { ArrivalSum } from './reduce/arrival-sum.ts';
import type { ReduceResult } from './reduce/reduce-pool.ts';
import { averageState } from './reduce/average-state.ts';
import { Recovery, StartupRecovery } from './recovery.ts';
import { checkConfigChanges, checkSameRun } from './resume.ts';
import { describeStop, type AbortSignalLike, type StopRequest, type TrainCallbacks } from './callbacks.ts';
import { RunHooks } from './run-hooks.ts';
import { printHeader } from './run-header.ts';
import { learningRateAt } from './schedules.ts';
import type { Dataset } from './data/rows.ts';
import { howToLoad } from './model-load-hint.ts';
import { openSession, runDevices, type Session } from './session.ts';
import { Interrupted, noSignals, type SignalWatch } from './signals.ts';
import { stageAhead, type StageAhead } from './stage-ahead.ts';
import { StepDeadline } from './step-deadline.ts';
import { unwritableDirReason } from './writable.ts';
import { verifyCheckpoint } from './checkpoint-integrity.ts';
import { claimRunDir, type RunDirClaim } from './run-dir.ts';
import { checkMicroBatchesFitShard, checkSkipBound, checkSomethingToTrain } from './train-checks.ts';

export interface TrainOptions {
  /** The machines of the run (cluster.ts); default: this machine alone. */
  cluster?: Cluster;
  /**
   * --resume: a run directory (its newest checkpoint) or a checkpoint directory of this run.
   * `cfg` is checked against the checkpoint's config (resume.ts): what it fixes must not differ.
   */
  resume?: string | null;
  /** --allow-changed: key prefixes whose change from the checkpoint's config is accepted. */
  allowChanged?: readonly string[];
  /** Ctrl-C / SIGTERM, watched by the CLI: the loop stops after the step in progress. */
  signals?: SignalWatch;
  /** The library API's: aborting it stops the run as Ctrl-C does (after the step, with a checkpoint). */
  signal?: AbortSignalLike | null;
  /** The library API's callbacks (callbacks.ts), called on rank 0. */
  callbacks?: TrainCallbacks;
  /** How the messages say to continue a stopped or failed run; default `--resume` (with the run directory after a failure). */
  resumeHint?: string;
  /** --overwrite: a new run into a directory that holds another run removes that run's files (run-dir.ts). */
  overwrite?: boolean;
}

export interface TrainResult {
  runDir: string;
  modelPath: string | null; // null when the run was interrupted before its end
  steps: number; // steps completed
  finalLoss: number;
  eval: EvalResult | null;
  weights: Float32Array; // the final master weights, flat (trainable first)
  ema: Float32Array | null;
  interrupted: NodeJS.Signals | null;
  /** Stopped by the library API on this machine: its AbortSignal, or a callback that asked. */
  stopRequest: StopRequest | null;
  skippedSteps: number[];
  restarts: number;
  /** A resume of a run that had already run all its steps: nothing was started or written. */
  alreadyFinished: boolean;
  /** Early stopping ended the run before its last step (training.earlyStopping). */
  stopped: StopRecord | null;
  /** checkpoint.best: the step whose weights runs/<name>/best/ holds, and its monitored value. */
  best: { step: number; value: number; monitor: string } | null;
  /** training.earlyStopping.restoreBest: the step whose weights final/ (and `weights`) hold. */
  restoredFrom: number | null;
}

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
  // ---- setup -------------------------------------------------------------------------------
  const calledAt = performance.now();
  // First: an N of simulated GPUs the machine cannot hold, or a GPU that cannot be used, is refused at once.
  const devicePlan = await runDevices(cfg, out);
  // Custom metric modules are imported (and checked) before any worker starts.
  const evalMetrics = await loadEvalMetrics(cfg);
  const devices = devicePlan.devices;
  const resumeDir = opts.resume ? findCheckpoint(opts.resume) : null;
  if (resumeDir) verifyCheckpoint(resumeDir, 'resume');
  // Class names keep the checkpoint's mapping on --resume (its labels.json), whatever data.train holds now.
  // A signal while the data loads (a data module's generator) stops the start-up there.
  const signals = opts.signals ?? noSignals;
  let splits: Splits;
  try {
    splits = await signals.duringStartup((abort) => loadSplits(cfg, resumeDir ? readLabels(resumeDir) : null, abort), 'no worker has started yet');
  } catch (err) {
    if (!(err instanceof Interrupted)) throw err;
    out.line(`stopped by ${err.signal} while loading the data, before any step; no worker had started`, true);
    return notStarted(cfg, err.signal, null, 0);
  }
  const classes = splits.classes;
  const modelFiles = labelFiles(classes?.classes ?? null); // beside every model.json written
  // Class weights weigh the training loss alone (as Keras's class_weight); the eval set keeps its own sample weights.
  // (Validation refuses class weights with one loss per output.)
  // With class names, training.classWeights names classes: keyed by index in this run's mapping.
  const classWeights = resolveClassWeights(cfg.training.classWeights, classes?.classes ?? null);
  // (and with a custom loss, which has no classes): only a built-in loss for every output takes them.
  const only = oneLoss(cfg.loss);
  const classLoss = typeof only === 'string' ? only : null;
  const trainSet = classLoss !== null ? withClassWeights(splits.train, classWeights, classLoss, 'data.train') : splits.train;
  const evalSet = splits.eval;
  const B = cfg.training.batchSize;
  const plan = new BatchPlan(trainSet.count, B, cfg.training.seed, cfg.training.dropLast, cfg.training);
  const evalBatch = cfg.eval.batchSize ?? B;
  const cluster = opts.cluster ?? soloCluster();
  if (cluster.size > 1 && cfg.reliability.onWorkerFailure === 'reshard') {
    throw new MgpuError('E_CONFIG', 'reliability.onWorkerFailure: reshard changes how a batch is split, which the other machines cannot follow', {
      hint: 'use restart (or abort) when training on several machines',
    });
  }
  // Several machines: rank 0 alone writes the run directory (config, metrics, checkpoints, model).
  const lead = cluster.rank === 0;
  const resumeHint = opts.resumeHint;
  if (resumeDir) {
    const state = readTrainerState(resumeDir);
    checkSameRun(resumeDir, state, cfg);
    const { report } = checkConfigChanges(resumeDir, state, cfg, opts.allowChanged ?? []);
    if (state.step >= plan.totalSteps || state.stopped) return finished(resumeDir, state.step, state.stopped ?? null);
    if (report) out.line(report);
  }
  const unwritable = lead ? unwritableDirReason(cfg.runDir) : null;
  if (unwritable) {
    throw new ConfigError(
      'runDir',
      `cannot write the run to ${cfg.runDir}: ${unwritable}`,
      'set runDir in the config, or --run-dir, to a directory this user can write',
    );
  }
  // Rank 0 writes the run directory, so it holds the lock (one run at a time in it).
  if (lead) claim.held = claimRunDir(cfg.runDir, { resume: resumeDir !== null, overwrite: opts.overwrite ?? false, say: (text) => out.line(text) });
  // A worker that fails to start is restarted (within the maxRestarts the run has left) or retired.
  const startup = new StartupRecovery(cfg, out, resumeDir ? readTrainerState(resumeDir).restarts : 0);
  // The library API's callbacks and AbortSignal; released on every way out from here.
  const hooks = new RunHooks(opts.callbacks ?? {}, opts.signal ?? null, lead, (text) => out.line(text), { runDir: cfg.runDir, totalSteps: plan.totalSteps });
  let ckpt: Checkpoint | null = null;
  let s: Session;
  try {
    // A Ctrl-C while the workers spawn and load stops the start-up at once.
    s = await signals.duringStartup((ctrlC) =>
      hooks.duringStartup(ctrlC, (abort) =>
        openSession(cfg, devicePlan, {
          data: evalSet ? [trainSet, evalSet] : [trainSet],
          dataKeys: ['data.train', cfg.data.eval ? 'data.eval' : 'data.evalFraction'],
          maxBatch: Math.max(B, evalBatch),
          initialWeights: resumeDir
            ? (layout) => {
                ckpt = readCheckpoint(resumeDir, layout);
                return ckpt.weights;
              }
            : null,
          abort,
          onStartFailure: startup.decide,
          cluster,
          classes: { mapping: classes, key: 'data.train' },
        }),
      ),
    );
  } catch (err) {
    hooks.dispose();
    const stopped = hooks.stoppedBy(err);
    if (!(err instanceof Interrupted) && !stopped) throw err;
    out.line(`stopped by ${stopped ? describeStop(stopped) : (err as Interrupted).signal} during start-up, before any step; no worker is left`, true);
    return notStarted(cfg, stopped ? null : (err as Interrupted).signal, stopped, startup.restarts);
  }
  const resumed = ckpt as Checkpoint | null;
  const startStep = resumed?.state.step ?? 0;
  const skippedSteps = [...(resumed?.state.skippedSteps ?? [])];
  // The workers are up: whatever fails from here on stops them before it is thrown.
  let metrics: MetricsLog;
  let recovery: Recovery;
  let watch: EvalWatch;
  try {
    // Every machine runs the same config and code and built the same model; each learns how
    // many workers the others have (a batch is split over all of them).
    await cluster.join(configHash(cfg), s.group.active.length, layoutHash(s.group.layout.variables));
    checkSomethingToTrain(cfg, s.flat);
    checkMicroBatchesFitShard(
      cfg,
      cluster.workers.reduce((a, b) => a + b, 0),
    );
    checkMonitorsFitModel(cfg, s.group.layout);
    if (classLoss !== null) checkClassWeightsFitModel(classWeights, classLoss, outputsPerSample(s.group.layout), s.group.layout.outputShape);
    if (resumed) {
      s.slots.forEach((slot, k) => slot.set(resumed.slots[k]!));
      if (s.ema && resumed.ema) s.ema.set(resumed.ema);
    }
    if (lead) {
      fs.mkdirSync(cfg.runDir, { recursive: true });
      writeFileAtomically(path.join(cfg.runDir, 'config.yaml'), serializeConfig(cfg));
    }
    metrics = lead ? new MetricsLog(path.join(cfg.runDir, 'metrics.jsonl'), resumed ? startStep : null) : noMetrics();
    for (const f of startup.failures) metrics.write({ type: 'failure', step: startStep, ranks: [f.rank], message: f.message, action: f.action });
    recovery = new Recovery(s, cfg, out, metrics, startup.restarts, Math.max(B, evalBatch));
    printHeader(out, cfg, s, devices, plan, trainSet, evalSet, devicePlan.placement, classes);
    if (resumed) out.line(`resuming from ${resumed.dir} at step ${startStep} of ${plan.totalSteps}`);
    // The best checkpoint, early stopping, the plateau schedule: their state goes on from the checkpoint's.
    watch = new EvalWatch({ cfg, lead, out, metrics, layout: s.group.layout, master: s.master, ema: s.ema, modelFiles }, resumed);
  } catch (err) {
    hooks.dispose();
    await s.close();
    throw err;
  }
  const recover = (err: unknown, step: number) => recovery.recover(err, step);

  let lastSaved = -1; // the step of the newest checkpoint written
  const saveCheckpoint = (completed: number, stopped: StopRecord | null = null): string => {
    const dir = checkpointDir(cfg.runDir, completed);
    if (!lead) return dir;
    lastSaved = completed;
    writeCheckpoint(
      dir,
      s.group.layout,
      {
        format: 'mgpu-train-checkpoint',
        version: 1,
        step: completed,
        epoch: Math.floor(completed / plan.stepsPerEpoch),
        seed: cfg.training.seed,
        batchSize: B,
        workers: cluster.workers.reduce((a, b) => a + b, 0),
        backend: s.group.backend,
        optimizer: cfg.optimizer,
        ema: cfg.training.ema,
        skippedSteps,
        restarts: recovery.restarts,
        variables: s.group.layout.variables,
        config: cfg,
        savedAt: new Date().toISOString(),
        monitors: watch.states(),
        stopped,
      },
      s.master,
      s.slots,
      s.ema,
      watch.snapshots(),
      modelFiles,
    );
    pruneCheckpoints(cfg.runDir, cfg.checkpoint.keep);
    hooks.checkpointed({ step: completed, epoch: Math.floor(completed / plan.stepsPerEpoch), path: dir });
    return dir;
  };
  const runEval = async (step: number, epoch: number): Promise<EvalResult> => {
    let r: EvalResult;
    for (;;) {
      try {
        // An eval chunk has stepTimeout, as a step has before it is timed (chunks differ in size).
        const run = () => evaluate(s, evalSet!, evalBatch, cfg.loss, cfg.eval.topK, cfg.reliability.stepTimeout * 1000, evalMetrics);
        r = cfg.eval.useEma ? await s.withWeights(s.ema!, run) : await run();
        break;
      } catch (err) {
        await recover(err, step);
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
    metrics.write(line);
    hooks.evaluated(line);
    // With config metrics, those are what is printed; without, the shipped figures. Several
    // outputs: each output's loss, then the config's metrics (per output), or without them each
    // output's shipped figures.
    const fields = outputFields(r);
    const acc = r.outputs
      ? r.metrics
        ? metricsInline({ ...Object.fromEntries(Object.entries(fields).filter(([key]) => key.startsWith('loss.'))), ...r.metrics }, r.k)
        : metricsInline(fields, r.k)
      : r.metrics
        ? metricsInline(r.metrics, r.k)
        : r.accuracy === null
          ? `mae ${r.mae.toFixed(4)}`
          : `accuracy ${(100 * r.accuracy).toFixed(2)}%` + (r.topK === null ? '' : ` top-${r.k} ${(100 * r.topK).toFixed(2)}%`);
    out.line(`eval @ step ${step}${cfg.eval.useEma ? ' (EMA weights)' : ''}: loss ${r.loss.toFixed(4)} ${acc} (${r.samples} samples)`);
    return r;
  };

  const deadline = new StepDeadline(cfg.reliability);
  // With a worker on every core (simulated GPUs), the coordinator's own work waits for a core
  // that a worker has left.
  const spareCore = (): boolean => s.group.active.length < os.availableParallelism();
  const staged = stagedBatches(s, trainSet);
  signals.onStopNow(() => s.group.killAll());
  const window = newWindow();
  let completed = startStep;
  let lastLoss = NaN;
  let stepMs = 0; // smoothed, for the progress line
  let epoch = Math.floor(startStep / plan.stepsPerEpoch);
  let stopped: StopRecord | null = null; // by early stopping
  let samplesTrained = 0;
  const loopAt = performance.now();
  try {
    // Several machines stop after the same step: a stop request is summed with each step's loss
    // (a signal's and the library API's apart: the API's is void once the last step is done).
    let signalAgreed = false;
    let apiStopAgreed = false;
    const bySignal = () => (cluster.size > 1 ? signalAgreed : signals.requested() !== null);
    const byApi = () => (cluster.size > 1 ? apiStopAgreed : hooks.requested() !== null);
    const stopping = () => bySignal() || byApi();
    // After a step (not the last: the end evaluates and checkpoints anyway). Every machine
    // evaluates at the same steps and gets the same sums: all stop alike. A run stopped here by
    // early stopping gets its checkpoint at the end.
    const evalAndCheckpointIfDue = async (): Promise<StopRecord | null> => {
      if (completed === plan.totalSteps) return null;
      const stop = evalSet && plan.due(cfg.eval.every, completed) ? watch.observe(completed, epoch, await runEval(completed, epoch), false) : null;
      if (plan.due(cfg.checkpoint.every, completed) && !stop) saveCheckpoint(completed);
      return stop;
    };
    for (let step = startStep; step < plan.totalSteps && !stopping() && !stopped; step++) {
      const t0 = performance.now();
      // ---- a) plan ---------------------------------------------------------------------------
      const batch = plan.batchAt(step);
      epoch = batch.epoch;
      const n = batch.indices.length;
      const slot = (step % 2) as 0 | 1;
      let shards = s.shards(n);
      // ---- b) stage (usually done already: the previous step staged this batch) -------------
      if (!staged.matches(step, shards)) staged.stage(step, batch.indices, shards);
      const t1 = performance.now();
      // ---- c) dispatch + d) gather; meanwhile the next batch goes into the other buffer --------
      let replies: GradsMessage[];
      let early: ArrivalSum;
      let next: StageAhead;
      for (;;) {
        early = new ArrivalSum(
          s.pool,
          shards.map((sh) => sh.rank),
        );
        // The next batch is staged while this one computes: at once when a core is spare, else
        // when the first gradient arrives (that worker's core is free then): the coordinator
        // must not take a core from a computing worker.
        const ahead = (next = stageAhead(
          step + 1 < plan.totalSteps
            ? () => {
                const b = plan.batchAt(step + 1);
                staged.stage(step + 1, b.indices, s.shards(b.indices.length));
              }
            : null,
        ));
        const arrivals = early;
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
          `step ${step}`,
          shards.map((sh) => sh.rank),
          deadline.ms(),
          (reply, rank) => {
            arrivals.onReply(reply, rank);
            if (!spareCore()) ahead.run();
          },
        );
        if (spareCore()) ahead.run();
        try {
          replies = await gathering;
          break;
        } catch (err) {
          await early.settle().catch(() => {}); // nothing may still write the sum when the step reruns
          await recover(err, step);
          shards = s.shards(n);
          staged.stage(step, batch.indices, shards);
        }
      }
      const t2 = performance.now();
      deadline.record(t2 - t1);
      // What every machine must agree on: the loss, ranks with a non-finite result, the ranks
      // that changed their BatchNorm statistics, stop requests (a no-op on one machine).
      const agreed = new Float64Array([
        replies.reduce((a, m) => a + m.lossSum, 0),
        replies.filter((m) => !m.finite).length,
        replies.filter((m) => m.stateChanged).length,
        replies.length,
        signals.requested() ? 1 : 0,
        hooks.requested() ? 1 : 0,
      ]);
      await cluster.arrive(step); // rank 0 names a machine that does not get here in time
      await cluster.sum(agreed, `step ${step}: the agreement on the loss`);
      signalAgreed = agreed[4]! > 0;
      apiStopAgreed = agreed[5]! > 0;
      lastLoss = agreed[0]! / n;
      // ---- e) reduce + apply (not when a rank's loss or gradient is NaN or infinite) ---------
      const done = await finishStep(
        s,
        step,
        n,
        shards,
        replies,
        early,
        next,
        { nonFinite: agreed[1]!, stateChanged: agreed[2]!, ranks: agreed[3]! },
        (what, bad) => {
          checkSkipBound(cfg, skippedSteps.length + 1, plan.totalSteps, what);
          skippedSteps.push(step);
          metrics.write({ type: 'skip', step, ranks: bad, message: what, action: 'skipped' });
          out.line(`${what}; step skipped (${skippedSteps.length} so far)`);
        },
        watch.baseLr(),
        step - skippedSteps.length,
      );
      if (done === null) {
        completed = step + 1;
        // The weights did not change, but an evaluation or checkpoint due at this step still
        // happens: a skipped step must not stretch the interval to the next checkpoint.
        stopped = await evalAndCheckpointIfDue();
        await hooks.endOfStep(completed, null, completed % plan.stepsPerEpoch === 0 ? window.flushEpoch(completed, epoch, NaN, NaN) : null);
        continue;
      }
      const { reduced, lr, stateChanged } = done;
      // ---- f) publish ------------------------------------------------------------------------
      s.weightsVersion++;
      if (stateChanged) s.stateVersion++;
      completed = step + 1;
      samplesTrained += n;
      const t3 = performance.now();
      // ---- g) log / eval / checkpoint --------------------------------------------------------
      const ms = replies.map((m) => m.ms);
      window.add(
        lastLoss,
        n,
        Math.max(...ms),
        Math.min(...ms),
        Math.max(...replies.map((m) => m.refreshMs)),
        Math.max(...replies.map((m) => m.writeMs)),
        t3 - t2,
        t1 - t0,
        t3 - t0,
      );
      stepMs = stepMs === 0 ? t3 - t0 : 0.9 * stepMs + 0.1 * (t3 - t0);
      // The loss shown is the one metrics.jsonl gets: the mean over the steps since its last line.
      const shown = window.loss();
      out.step(
        completed,
        plan.totalSteps,
        `epoch ${epoch + 1} loss(mean of ${shown.steps}) ${shown.mean.toFixed(4)} lr ${lr.toPrecision(3)} ${Math.round((B * 1000) / stepMs)} samples/s eta ${eta((plan.totalSteps - completed) * stepMs)}`,
      );
      if (completed % cfg.log.every === 0 || completed === plan.totalSteps) metrics.write(window.flush(completed, epoch, lr, reduced.gradNorm));
      stopped = await evalAndCheckpointIfDue();
      // Keep this last in the step: the API's callbacks get the step's figures, its evaluations
      // and checkpoints, then the epoch's figures when it ended one.
      await hooks.endOfStep(
        completed,
        window.lastStep(completed, epoch, lr, reduced.gradNorm),
        completed % plan.stepsPerEpoch === 0 ? window.flushEpoch(completed, epoch, lr, reduced.gradNorm) : null,
      );
    }
    out.done();
    if (completed > startStep) out.line(timeLine(completed - startStep, samplesTrained, performance.now() - loopAt, loopAt - calledAt));
    if (skippedSteps.length > 0) {
      out.line(
        `warning: ${skippedSteps.length} of ${completed} steps were skipped (a non-finite loss or gradient; reliability.onNonFinite: skip), so the weights had ${completed - skippedSteps.length} updates; the skip lines of metrics.jsonl name each step and rank`,
        true,
      );
    }
    // Another machine's signal, here without one of its own, reads as SIGTERM. The API's stop
    // after the last step changes nothing: the run ends as planned.
    const interrupted = !stopped && bySignal() ? (signals.requested() ?? 'SIGTERM') : null;
    const requested = !stopped && !interrupted && byApi() && completed < plan.totalSteps ? (hooks.requested() ?? OTHER_MACHINE_STOP) : null;
    if (interrupted || requested) {
      // A stop right after an interval checkpoint has its checkpoint already.
      const dir = lastSaved === completed ? checkpointDir(cfg.runDir, completed) : completed > startStep ? saveCheckpoint(completed) : null;
      const saved = dir ? `; checkpoint in ${dir} (continue with ${resumeHint ?? '--resume'})` : '';
      const by = interrupted ?? describeStop(requested!);
      out.line(`stopped by ${by} after step ${completed}${saved}`, true);
      // In metrics.jsonl too: a terminal that went away (SIGHUP) may have taken the line above.
      metrics.write({
        type: 'stop',
        step: completed,
        ranks: [],
        message: `stopped by ${by}`,
        action: saved ? `checkpoint step-${completed}` : 'no step since the start: no checkpoint',
      });
      await hooks.flush();
      return result(null, null, interrupted, requested);
    }
    // ---- end: evaluate, save -----------------------------------------------------------------
    // A run stopped early was evaluated at this step already.
    let finalEval: EvalResult | null = null;
    if (evalSet && watch.last?.step === completed) {
      finalEval = watch.last.result;
    } else if (evalSet) {
      finalEval = await runEval(completed, epoch);
      watch.observe(completed, epoch, finalEval, true);
    }
    await checkSameWeights(s);
    // The checkpoint keeps the last step's weights (a run to continue); final/ may get the best ones.
    saveCheckpoint(completed, stopped);
    await hooks.flush(); // the API's callbacks get the final evaluation and checkpoint
    const restored = watch.restored(completed);
    const modelPath = path.join(cfg.runDir, 'final', 'model.json');
    const finalWeights = restored?.weights ?? s.master;
    const finalEma = restored ? restored.ema : s.ema;
    if (lead) {
      writeLayersModel(path.dirname(modelPath), s.group.layout, finalWeights, modelFiles);
      if (finalEma) writeLayersModel(path.join(cfg.runDir, 'final-ema'), s.group.layout, finalEma, modelFiles);
    }
    out.line(
      `model saved to ${modelPath}${finalEma ? ` (EMA weights in ${path.join(cfg.runDir, 'final-ema')})` : ''}; ${howToLoad(s.group.layout, cfg.model.customLayers ?? null)}`,
    );
    return {
      ...result(modelPath, finalEval, null),
      weights: finalWeights.slice(),
      ema: finalEma?.slice() ?? null,
      stopped,
      restoredFrom: restored?.step ?? null,
    };
  } catch (err) {
    // Nothing trained is lost: the last completed step goes into a checkpoint before the error.
    hooks.mute();
    // A custom metric that fails in an evaluation (E_METRIC) is the user's to fix, but the steps
    // trained before it are kept all the same; so does a callback that throws (E_CALLBACK).
    if (
      (err instanceof MgpuError && (err.code === 'E_WORKER' || err.code === 'E_NONFINITE' || err.code === 'E_METRIC' || err.code === 'E_CALLBACK')) ||
      err instanceof WorkerError
    ) {
      out.done();
      const dir = saveCheckpoint(completed);
      const e = err;
      throw new MgpuError(e.code, e.message, {
        hint: [e.hint, `the last completed step (${completed}) is in ${dir}; continue with ${resumeHint ?? `--resume ${cfg.runDir}`}`]
          .filter(Boolean)
          .join('\n  hint: '),
        exitCode: e.exitCode,
        cause: e.cause,
      });
    }
    throw err;
  } finally {
    hooks.dispose();
    metrics.close();
    await s.close();
  }

  function result(modelPath: string | null, ev: EvalResult | null, interrupted: NodeJS.Signals | null, requested: StopRequest | null = null): TrainResult {
    const b = watch.best;
    return {
      runDir: cfg.runDir,
      modelPath,
      steps: completed,
      finalLoss: lastLoss,
      eval: ev,
      weights: s.master.slice(),
      ema: s.ema?.slice() ?? null,
      interrupted,
      stopRequest: requested,
      skippedSteps,
      restarts: recovery.restarts,
      alreadyFinished: false,
      stopped: null,
      best: b && b.step !== null ? { step: b.step, value: b.best, monitor: b.monitor } : null,
      restoredFrom: null,
    };
  }

  /** The checkpoint is at (or past) the last step, or early stopping ended the run: say so, start nothing, write nothing. */
  function finished(dir: string, step: number, stop: StopRecord | null): TrainResult {
    const ckpt = readCheckpoint(dir, {
      variables: readTrainerState(dir).variables,
      saveOrder: [],
      inputShape: [],
      outputShape: [],
      inputs: [],
      outputs: [],
      topology: null,
    });
    const model = path.join(cfg.runDir, 'final', 'model.json');
    const modelPath = fs.existsSync(model) ? model : null;
    const where = stop
      ? `early stopping ended it at step ${step} (${stop.message.replace(/^early stopping after step \d+: /, '')})`
      : `${dir} is at step ${step}${step > plan.totalSteps ? `, past the ${plan.totalSteps} steps of this config` : ` of ${plan.totalSteps}`}`;
    out.line(
      `the run in ${cfg.runDir} has finished: ${where}` +
        `${modelPath ? `, and its model is in ${path.dirname(modelPath)}` : ''}; nothing to do (${stop ? 'to train on, start a new run from its final/ or a checkpoint' : 'to train on, raise training.steps or training.epochs with --set'})`,
    );
    const b = ckpt.state.monitors?.best;
    return {
      runDir: cfg.runDir,
      modelPath,
      steps: step,
      finalLoss: NaN,
      eval: null,
      weights: ckpt.weights,
      ema: ckpt.ema,
      interrupted: null,
      stopRequest: null,
      skippedSteps: ckpt.state.skippedSteps,
      restarts: ckpt.state.restarts,
      alreadyFinished: true,
      stopped: stop,
      best: b && b.step !== null ? { step: b.step, value: Number(b.best), monitor: b.monitor } : null,
      restoredFrom: null,
    };
  }
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
          ? `step ${step}: non-finite loss or gradient from ${mine}`
          : `step ${step}: non-finite loss or gradient from ${plural(everywhere.nonFinite, 'worker')} of the cluster${mine ? ` (here: ${mine} on ${c.where(c.rank)})` : ''}`;
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
      c.size === 1
        ? await s.pool.run(remaining, continuing, lr, t)
        : await s.pool.runCombined(remaining, continuing, lr, t, async (gradSum) => {
            await c.arrive(step, 1); // again before the big one: a machine that stalls in between is named too
            await c.sum(gradSum, `step ${step}: the gradient allreduce`);
          });
    // Non-trainables that the step changed (BatchNorm statistics); frozen ones never are.
    const stateChanged = everywhere.stateChanged;
    if (stateChanged !== 0 && stateChanged !== everywhere.ranks) {
      throw new MgpuError('E_INTERNAL', `step ${step}: ${stateChanged} of ${everywhere.ranks} ranks changed their non-trainable weights`);
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

/** A run stopped during start-up (by a signal or the library API): no step, nothing written. */
function notStarted(cfg: Config, interrupted: NodeJS.Signals | null, stopRequest: StopRequest | null, restarts: number): TrainResult {
  return {
    runDir: cfg.runDir,
    modelPath: null,
    steps: 0,
    finalLoss: NaN,
    eval: null,
    weights: new Float32Array(0),
    ema: null,
    interrupted,
    stopRequest,
    skippedSteps: [],
    restarts,
    alreadyFinished: false,
    stopped: null,
    best: null,
    restoredFrom: null,
  };
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
      hint: 'the allreduce gave ranks different sums; run with the ring algorithm (see the README, "Several machines")',
    });
  }
}

/** How long the steps took (evaluations and checkpoints between them included) and the start-up before them. */
function timeLine(steps: number, samples: number, loopMs: number, startMs: number): string {
  const sec = (ms: number) => (ms / 1000).toFixed(ms < 10_000 ? 2 : 1);
  return `trained ${steps} step${steps > 1 ? 's' : ''} (${samples} samples) in ${sec(loopMs)} s, ${Math.round((samples * 1000) / loopMs)} samples/s (evaluations between them included); start-up ${sec(startMs)} s`;
}

/** A stop the library API asked for on another machine (its callbacks run on rank 0 alone). */
const OTHER_MACHINE_STOP: StopRequest = { by: 'cluster', reason: 'another machine of the run asked to stop' };

/** A metrics log that writes nothing: machines other than rank 0. */
function noMetrics(): MetricsLog {
  return { write() {}, close() {} } as unknown as MetricsLog;
}

/** Stages a step's shards into its slot once: a batch staged ahead is not staged again. */
function stagedBatches(s: Session, ds: Dataset) {
  const tag = (step: number, shards: Shard[]) => `${step}|${shards.map((x) => `${x.rank}:${x.start}-${x.end}`).join(',')}`;
  const slotOf = (step: number) => (step % 2) as 0 | 1;
  return {
    matches: (step: number, shards: Shard[]) => s.stager.holds(slotOf(step), tag(step, shards)),
    stage: (step: number, indices: Uint32Array, shards: Shard[]) => s.stager.stage(ds, indices, shards, slotOf(step), tag(step, shards)),
  };
}

function eta(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 3600
    ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
    : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/**
 * Per-step figures accumulated between two metrics lines (`flush`), and for the library API's
 * callbacks, over the last step alone (`lastStep`) and over the epoch so far (`flushEpoch`).
 */
function newWindow() {
  const since = () => ({ steps: 0, loss: 0, samples: 0, cmax: 0, cmin: 0, refresh: 0, write: 0, sync: 0, data: 0, wall: 0 });
  type Sums = ReturnType<typeof since>;
  let log = since();
  let epoch = since();
  let last = since();
  const lineOf = (a: Sums, step: number, ep: number, lr: number, gradNorm: number): TrainLine => {
    const r = (x: number) => Math.round(x * 1000) / 1000;
    const n = a.steps;
    return {
      type: 'train',
      step,
      epoch: ep,
      loss: a.loss / n,
      lr,
      samples_per_sec: r(a.samples / (a.wall / 1000)),
      compute_max_ms: r(a.cmax / n),
      compute_min_ms: r(a.cmin / n),
      refresh_ms: r(a.refresh / n),
      write_ms: r(a.write / n),
      sync_ms: r(a.sync / n),
      data_ms: r(a.data / n),
      step_ms: r(a.wall / n),
      grad_norm: gradNorm,
    };
  };
  return {
    add(l: number, n: number, max: number, min: number, refreshMs: number, writeMs: number, syncMs: number, dataMs: number, stepMs: number) {
      last = since();
      for (const a of [log, epoch, last]) {
        a.steps++;
        a.loss += l;
        a.samples += n;
        a.cmax += max;
        a.cmin += min;
        a.refresh += refreshMs;
        a.write += writeMs;
        a.sync += syncMs;
        a.data += dataMs;
        a.wall += stepMs;
      }
    },
    loss: () => ({ mean: log.loss / log.steps, steps: log.steps }),
    flush(step: number, ep: number, lr: number, gradNorm: number): TrainLine {
      const line = lineOf(log, step, ep, lr, gradNorm);
      log = since();
      return line;
    },
    lastStep: (step: number, ep: number, lr: number, gradNorm: number): TrainLine => lineOf(last, step, ep, lr, gradNorm),
    flushEpoch(step: number, ep: number, lr: number, gradNorm: number): TrainLine {
      const line = lineOf(epoch, step, ep, lr, gradNorm);
      epoch = since();
      return line;
    },
  };
}
