// The set-up of a training run, up to step 0: the devices, the data, the checks made before any
// worker starts (a resume of a finished run ends here), the run directory's claim, the workers'
// start-up, the checks once the model is built, and what the loop needs (the Run). A signal or
// the library API's stop during start-up ends the run here too, with nothing written.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { largestBatchSize } from '../config/batch-sizes.ts';
import { serializeConfig } from '../config/load.ts';
import { oneLoss } from '../config/loss.ts';
import type { Config, LossName } from '../config/types.ts';
import { ConfigError, MgpuError } from '../shared/errors.ts';
import { layoutHash, outputsPerSample } from '../shared/layout.ts';
import { writeFileAtomically } from '../shared/atomic-write.ts';
import { BatchPlan } from '../data/batch-plan.ts';
import { shardOrder } from '../data/shard-order.ts';
import { describeStop, type AbortSignalLike, type TrainCallbacks } from './run/callbacks.ts';
import { findCheckpoint, readCheckpoint, readTrainerState, setAsideLaterCheckpoints, type Checkpoint } from './run/checkpoint.ts';
import type { StopRecord } from './run/trainer-state.ts';
import { verifyCheckpoint } from './run/checkpoint-integrity.ts';
import { configHash, soloCluster, type Cluster } from './devices/cluster.ts';
import { labelFiles, readLabels } from '../data/classes.ts';
import type { Dataset } from '../data/rows.ts';
import { checkClassWeightsFitModel, resolveClassWeights, withClassWeights } from '../data/sample-weights.ts';
import { loadSplits, type Splits } from '../data/splits.ts';
import { checkMonitorsFitModel, EvalWatch } from './run/eval-watch.ts';
import { badSamples, type BadSamples } from './run/bad-samples.ts';
import { MetricsLog } from './run/metrics-log.ts';
import { loadEvalMetrics } from './metrics/index.ts';
import type { Progress } from './console/progress.ts';
import { Recovery, StartupRecovery } from './run/recovery.ts';
import { FirstStepRecovery } from './run/first-step-recovery.ts';
import { checkConfigChanges, checkSameRun } from './run/resume.ts';
import { checkResumedData } from './run/resume-data.ts';
import { printHeader } from './run/run-header.ts';
import { RunHooks, startupStoppedBy, withApiAbort } from './run/run-hooks.ts';
import { claimRunDir, type RunDirClaim } from './run/run-dir.ts';
import { openSession, runDevices, type Session } from './engine/session.ts';
import { Interrupted, noSignals, type SignalWatch } from './console/signals.ts';
import { checkMicroBatchesFitShards, checkSomethingToTrain } from './run/train-checks.ts';
import { bestOf, trainResult, type TrainResult } from './train-result.ts';
import { unwritableDirReason } from './run/writable.ts';

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

/** What the loop changes as it goes, step after step. */
export interface RunState {
  completed: number; // steps completed
  lastLoss: number;
  epoch: number;
  stopped: StopRecord | null; // by early stopping
  samplesTrained: number;
  stepMs: number; // smoothed, for the progress line
  lastSaved: number; // the step of the newest checkpoint written
  // Several machines stop after the same step: a stop request is summed with each step's loss
  // (a signal's and the library API's apart: the API's is void once the last step is done).
  signalAgreed: boolean;
  apiStopAgreed: boolean;
}

/** A run that has started its workers: what its steps, evaluations, checkpoints and end use. */
export interface Run {
  cfg: Config;
  out: Progress;
  signals: SignalWatch;
  resumeHint: string | undefined;
  cluster: Cluster;
  lead: boolean; // rank 0 alone writes the run directory (config, metrics, checkpoints, model)
  plan: BatchPlan;
  trainSet: Dataset;
  evalSet: Dataset | null;
  evalMetrics: Awaited<ReturnType<typeof loadEvalMetrics>>;
  modelFiles: Record<string, string>; // beside every model.json written
  s: Session;
  hooks: RunHooks;
  metrics: MetricsLog;
  recovery: Recovery;
  watch: EvalWatch;
  startStep: number;
  skippedSteps: number[];
  badSamples: BadSamples; // data.onBadSample: skip
  calledAt: number;
  state: RunState;
}

/** The run set up to step 0, or the result of a run that ends before it. */
export type SetUp = { run: Run; result?: never } | { result: TrainResult; run?: never };

/** What set-up knows before any worker starts. */
interface Prepared {
  cfg: Config;
  out: Progress;
  opts: TrainOptions;
  calledAt: number;
  devicePlan: Awaited<ReturnType<typeof runDevices>>;
  evalMetrics: Run['evalMetrics'];
  resumeDir: string | null;
  signals: SignalWatch;
  classes: Splits['classes'];
  modelFiles: Record<string, string>;
  classWeights: ReturnType<typeof resolveClassWeights>;
  classLoss: LossName | null;
  trainSet: Dataset;
  evalSet: Dataset | null;
  plan: BatchPlan;
  cluster: Cluster;
  lead: boolean;
}

/** The run directory is claimed (`claim.held`) once set-up reaches it; the caller releases it. */
export async function setUpRun(cfg: Config, out: Progress, opts: TrainOptions, claim: { held: RunDirClaim | null }): Promise<SetUp> {
  const p = await prepare(cfg, out, opts);
  if ('result' in p) return p;
  let resumeStep: number | null = null;
  if (p.resumeDir) {
    const state = readTrainerState(p.resumeDir);
    resumeStep = state.step;
    checkSameRun(p.resumeDir, state, cfg);
    const { report } = checkConfigChanges(p.resumeDir, state, cfg, opts.allowChanged ?? []);
    const said = [report, ...checkResumedData(p.resumeDir, state, p.trainSet, p.evalSet, opts.allowChanged ?? [])];
    if (state.step >= p.plan.totalSteps || state.stopped) return { result: finished(p, p.resumeDir, state.step, state.stopped ?? null) };
    for (const line of said) if (line) out.line(line);
  }
  const unwritable = p.lead ? unwritableDirReason(cfg.runDir) : null;
  if (unwritable) {
    throw new ConfigError(
      'runDir',
      `cannot write the run to ${cfg.runDir}: ${unwritable}`,
      'set runDir in the config, or --run-dir, to a directory this user can write',
    );
  }
  // Rank 0 writes the run directory, so it holds the lock (one run at a time in it).
  if (p.lead) claim.held = claimRunDir(cfg.runDir, { resume: p.resumeDir !== null, overwrite: opts.overwrite ?? false, say: (text) => out.line(text) });
  if (p.lead && resumeStep !== null) {
    const aside = setAsideLaterCheckpoints(cfg.runDir, resumeStep);
    if (aside)
      out.line(`resuming from step ${resumeStep}: the later checkpoints ${aside.moved.join(', ')} (of the run as it went before) moved to ${aside.to}`);
  }
  return startWorkers(p, () => claim.held?.clearEarlier());
}

/** The devices, the metric modules, the checkpoint to resume and the data: nothing started yet. */
async function prepare(cfg: Config, out: Progress, opts: TrainOptions): Promise<Prepared | { result: TrainResult }> {
  const calledAt = performance.now();
  // First: an N of simulated GPUs the machine cannot hold, or a GPU that cannot be used, is refused at once.
  const devicePlan = await runDevices(cfg, out);
  // Custom metric modules are imported (and checked) before any worker starts.
  const evalMetrics = await loadEvalMetrics(cfg);
  const resumeDir = opts.resume ? findCheckpoint(opts.resume) : null;
  if (resumeDir) verifyCheckpoint(resumeDir, 'resume');
  // Class names keep the checkpoint's mapping on --resume (its labels.json), whatever data.train holds now.
  // A signal while the data loads (a data module's generator) stops the start-up there.
  const signals = opts.signals ?? noSignals;
  let splits: Splits;
  try {
    splits = await signals.duringStartup(
      (ctrlC) => withApiAbort(opts.signal ?? null, ctrlC, (abort) => loadSplits(cfg, resumeDir ? readLabels(resumeDir) : null, abort)),
      'no worker has started yet',
    );
  } catch (err) {
    const stopped = startupStoppedBy(err);
    if (!(err instanceof Interrupted) && !stopped) throw err;
    out.line(
      `stopped by ${stopped ? describeStop(stopped) : (err as Interrupted).signal} while loading the data, before any step; no worker had started`,
      true,
    );
    return { result: trainResult(cfg.runDir, stopped ? { stopRequest: stopped } : { interrupted: (err as Interrupted).signal }) };
  }
  const classes = splits.classes;
  const modelFiles = labelFiles(classes?.classes ?? null);
  // Class weights weigh the training loss alone (as Keras's class_weight); the eval set keeps its own sample weights.
  // (Validation refuses class weights with one loss per output.)
  // With class names, training.classWeights names classes: keyed by index in this run's mapping.
  const classWeights = resolveClassWeights(cfg.training.classWeights, classes?.classes ?? null);
  // (and with a custom loss, which has no classes): only a built-in loss for every output takes them.
  const only = oneLoss(cfg.loss);
  const classLoss = typeof only === 'string' ? only : null;
  const trainSet = classLoss !== null ? withClassWeights(splits.train, classWeights, classLoss, 'data.train') : splits.train;
  const order = trainSet.shardOrder ? shardOrder(trainSet.shardOrder.shardOf, trainSet.shardOrder.openShards) : undefined; // data.train.order: shards
  const plan = new BatchPlan(trainSet.count, cfg.training.batchSize, cfg.training.seed, cfg.training.dropLast, cfg.training, order);
  const cluster = opts.cluster ?? soloCluster();
  if (cluster.size > 1 && cfg.reliability.onWorkerFailure === 'reshard') {
    throw new MgpuError('E_CONFIG', 'reliability.onWorkerFailure: reshard changes how a batch is split, which the other machines cannot follow', {
      hint: 'use restart (or abort) when training on several machines',
    });
  }
  return {
    cfg,
    out,
    opts,
    calledAt,
    devicePlan,
    evalMetrics,
    resumeDir,
    signals,
    classes,
    modelFiles,
    classWeights,
    classLoss,
    trainSet,
    evalSet: splits.eval,
    plan,
    cluster,
    lead: cluster.rank === 0,
  };
}

/**
 * The workers start (a Ctrl-C or the API's stop ends the start-up at once), then the run is
 * joined. `clearEarlier`: removes the run this one replaces, once the checks have passed.
 */
async function startWorkers(p: Prepared, clearEarlier: () => void): Promise<SetUp> {
  const { cfg, out, opts, resumeDir } = p;
  // A worker that fails to start is restarted (within the maxRestarts the run has left) or retired.
  const startup = new StartupRecovery(cfg, out, resumeDir ? readTrainerState(resumeDir).restarts : 0);
  // The library API's callbacks and AbortSignal; released on every way out from here.
  const hooks = new RunHooks(opts.callbacks ?? {}, opts.signal ?? null, p.lead, (text) => out.line(text), {
    runDir: cfg.runDir,
    totalSteps: p.plan.totalSteps,
  });
  let ckpt: Checkpoint | null = null;
  let s: Session;
  try {
    s = await p.signals.duringStartup((ctrlC) =>
      hooks.duringStartup(ctrlC, (abort) =>
        openSession(cfg, p.devicePlan, {
          data: p.evalSet ? [p.trainSet, p.evalSet] : [p.trainSet],
          dataKeys: ['data.train', cfg.data.eval ? 'data.eval' : 'data.evalFraction'],
          maxBatch: largestBatchSize(cfg),
          initialWeights: resumeDir
            ? (layout) => {
                ckpt = readCheckpoint(resumeDir, layout);
                return ckpt.weights;
              }
            : null,
          abort,
          onStartFailure: startup.decide,
          cluster: p.cluster,
          classes: { mapping: p.classes, key: 'data.train' },
        }),
      ),
    );
  } catch (err) {
    hooks.dispose();
    const stopped = hooks.stoppedBy(err);
    if (!(err instanceof Interrupted) && !stopped) throw err;
    out.line(`stopped by ${stopped ? describeStop(stopped) : (err as Interrupted).signal} during start-up, before any step; no worker is left`, true);
    return { result: trainResult(cfg.runDir, { interrupted: stopped ? null : (err as Interrupted).signal, stopRequest: stopped, restarts: startup.restarts }) };
  }
  const resumed = ckpt as Checkpoint | null; // read by initialWeights, as the session opened
  // The workers are up: whatever fails from here on stops them before it is thrown.
  try {
    return { run: await joinRun(p, s, hooks, startup, resumed, clearEarlier) };
  } catch (err) {
    hooks.dispose();
    await s.close();
    throw err;
  }
}

/** The machines agree, the built model is checked, the checkpoint restored, the run directory begun. */
async function joinRun(p: Prepared, s: Session, hooks: RunHooks, startup: StartupRecovery, resumed: Checkpoint | null, clearEarlier: () => void): Promise<Run> {
  const { cfg, out, cluster, lead, plan } = p;
  const startStep = resumed?.state.step ?? 0;
  const skippedSteps = [...(resumed?.state.skippedSteps ?? [])];
  // Every machine runs the same config and code and built the same model; each learns how
  // many workers the others have (a batch is split over all of them).
  await cluster.join(configHash(cfg), s.group.active.length, layoutHash(s.group.layout.variables));
  checkSomethingToTrain(cfg, s.flat);
  checkMicroBatchesFitShards(cfg, cluster.workers, p.plan);
  checkMonitorsFitModel(cfg, s.group.layout);
  if (p.classLoss !== null) checkClassWeightsFitModel(p.classWeights, p.classLoss, outputsPerSample(s.group.layout), s.group.layout.outputShape);
  if (resumed) {
    s.slots.forEach((slot, k) => slot.set(resumed.slots[k]!));
    if (s.ema && resumed.ema) s.ema.set(resumed.ema);
  }
  if (lead) {
    // Every check has passed: only now does an earlier run this one replaces (--overwrite) go.
    clearEarlier();
    fs.mkdirSync(cfg.runDir, { recursive: true });
    writeFileAtomically(path.join(cfg.runDir, 'config.yaml'), serializeConfig(cfg));
  }
  const metrics = lead ? new MetricsLog(path.join(cfg.runDir, 'metrics.jsonl'), resumed ? startStep : null) : noMetrics();
  for (const f of startup.failures) metrics.write({ type: 'failure', step: startStep, ranks: [f.rank], message: f.message, action: f.action });
  const recovery = new FirstStepRecovery(startStep + 1, s, cfg, out, metrics, startup.restarts, largestBatchSize(cfg)); // a failure that repeats in the first step is not retried
  printHeader(out, cfg, s, p.devicePlan.devices, plan, p.trainSet, p.evalSet, p.devicePlan.placement, p.classes);
  if (resumed) out.line(`resuming from ${resumed.dir} at step ${startStep} of ${plan.totalSteps}`);
  // The best checkpoint, early stopping, the plateau schedule: their state goes on from the checkpoint's.
  const watch = new EvalWatch({ cfg, lead, out, metrics, layout: s.group.layout, master: s.master, ema: s.ema, modelFiles: p.modelFiles }, resumed);
  const state: RunState = {
    completed: startStep,
    lastLoss: NaN,
    epoch: Math.floor(startStep / plan.stepsPerEpoch),
    stopped: null,
    samplesTrained: 0,
    stepMs: 0,
    lastSaved: -1,
    signalAgreed: false,
    apiStopAgreed: false,
  };
  const { signals, trainSet, evalSet, evalMetrics, modelFiles, calledAt } = p;
  const resumeHint = p.opts.resumeHint;
  return {
    cfg,
    out,
    signals,
    resumeHint,
    cluster,
    lead,
    plan,
    trainSet,
    evalSet,
    evalMetrics,
    modelFiles,
    s,
    hooks,
    metrics,
    recovery,
    watch,
    startStep,
    skippedSteps,
    badSamples: badSamples(metrics, out, path.join(cfg.runDir, 'metrics.jsonl')),
    calledAt,
    state,
  };
}

/** The checkpoint is at (or past) the last step, or early stopping ended the run: say so, start nothing, write nothing. */
function finished({ cfg, out, plan }: Prepared, dir: string, step: number, stop: StopRecord | null): TrainResult {
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
  return trainResult(cfg.runDir, {
    modelPath,
    steps: step,
    weights: ckpt.weights,
    ema: ckpt.ema,
    skippedSteps: ckpt.state.skippedSteps,
    restarts: ckpt.state.restarts,
    alreadyFinished: true,
    stopped: stop,
    best: bestOf(ckpt.state.monitors?.best),
  });
}

/** A metrics log that writes nothing: machines other than rank 0. */
function noMetrics(): MetricsLog {
  return { write() {}, close() {} } as unknown as MetricsLog;
}
