// Everything a run needs before its first step, set up in order and torn down in reverse:
// devices → slab → workers (each builds the model) → layout agreement → data fits model →
// slab sized → initial weights (the lowest active rank's, or a checkpoint's) published → master weights and
// optimizer state → reduce pool. Train, eval and predict all start here.
import os from 'node:os';
import type { Config } from '../../config/types.ts';
import {
  flatten,
  layoutHash,
  outputsPerSample,
  predictionsPerSample,
  slabLayout as makeSlabLayout,
  type FlatLayout,
  type ModelLayout,
  type SlabLayout,
} from '../../shared/layout.ts';
import type { RowFormat, ToWorker } from '../../shared/protocol.ts';
import { rowsPerRank, type Shard } from '../../shared/shard.ts';
import { Slab } from '../../shared/slab.ts';
import { checkClassesFitModel, type ClassMapping } from '../../data/classes.ts';
import type { Dataset } from '../../data/rows.ts';
import { checkSimulated, thisMachine, type Machine } from '../devices/capacity.ts';
import { soloCluster, type Cluster } from '../devices/cluster.ts';
import { planDevices, type DevicePlan, type Doing } from '../devices/device-plan.ts';
import { checkMetricsFit, needsScores, scoreBytesPerRow, workerMetrics } from '../metrics/index.ts';
import { makeUpdateRule } from './optimizers/index.ts';
import type { Progress } from '../console/progress.ts';
import { ReducePool } from './reduce/reduce-pool.ts';
import { batchNormRelay } from './batch-norm-relay.ts';
import type { ReduceShared } from './reduce/reducer.ts';
import { checkOutputFeatures, outputLosses } from './model-io.ts';
import { workerModel } from './net-spec.ts';
import { rowBytesOf, rowFormat } from './row-format.ts';
import { checkSplitRowsAgree } from '../../data/split-rows-agree.ts';
import { Stager } from './stager.ts';
import { GroupFailure, WorkerGroup, type StartFailurePolicy } from './worker-group.ts';

export interface Session {
  cfg: Config;
  group: WorkerGroup;
  /** The machines of the run: one, or several under an MPI launcher (cluster.ts). */
  cluster: Cluster;
  /** The rows of a batch of n that each active local rank computes (split over every machine's workers). */
  shards(n: number): Shard[];
  slab: Slab;
  layout: SlabLayout;
  flat: FlatLayout;
  rows: RowFormat;
  stager: Stager;
  /**
   * P floats shared with the reduce threads: the slab's weights region itself when mapped (the
   * update then publishes in place), else a SharedArrayBuffer copied into the slab after it.
   */
  master: Float32Array;
  slots: Float32Array[];
  ema: Float32Array | null;
  pool: ReducePool;
  weightsVersion: number; // bumped when the trainable weights in the slab change
  stateVersion: number; // bumped when the non-trainable ones do
  /** The `attach` a restarted or re-sized worker gets. */
  attachMessage(): ToWorker;
  /** Grows the input buffers so that each active rank can hold `rows` rows (reshard). */
  growInputs(rows: number): Promise<void>;
  /** Runs `fn` with other weights (the EMA) in the workers, then puts the master weights back. */
  withWeights<T>(weights: Float32Array, fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The workers this run starts and the backend they run (src/coordinator/devices/device-plan.ts); what
 * was decided is said here, and GPUs that go unused are said loudly. An N of simulated GPUs the
 * machine cannot hold is refused here, before any worker starts.
 */
export async function runDevices(cfg: Config, out: Progress, doing: Doing = 'training', machine: Machine = thisMachine()): Promise<DevicePlan> {
  const plan = await planDevices(cfg, doing);
  if (plan.devices.every((d) => d.simulated)) {
    const warning = checkSimulated(plan.devices.length, machine, cfg.devices.oversubscribe);
    if (warning) out.line(warning);
  }
  for (const line of plan.notes) out.line(line);
  for (const line of plan.warnings) out.line(`\n!!! ${line}\n`);
  return plan;
}

export interface SessionOptions {
  data: Dataset[];
  dataKeys: string[]; // config key of each dataset, for messages
  maxBatch: number; // the largest global batch a step, eval or predict chunk will split
  /** Weights to start from (a checkpoint's), given the model layout; null: the lowest active rank's freshly built model. */
  initialWeights: ((layout: ModelLayout) => Float32Array) | null;
  /** Aborted (by Ctrl-C): stop spawning, kill the workers that started, throw the abort's reason. */
  abort?: AbortSignal;
  /** What to do with a worker that fails to start (reliability.onWorkerFailure); default: fail. */
  onStartFailure?: StartFailurePolicy;
  /** Default: this machine alone. */
  cluster?: Cluster;
  /** Class-name labels: the mapping, checked against the model's outputs; `key` names the split in messages. */
  classes?: { mapping: ClassMapping | null; key: string };
  classCount?: number | null; // the classes where no mapping is checked (predict: the model's labels.json), for model.net
}

export async function openSession(cfg: Config, plan: DevicePlan, opts: SessionOptions): Promise<Session> {
  const slab = Slab.create(cfg.devices.shmDir);
  let group: WorkerGroup | null = null;
  const killAll = () => group?.killAll();
  opts.abort?.addEventListener('abort', killAll);
  try {
    group = await startWorkers(cfg, plan, slab, opts);
    const rows = dataRowsFitModel(cfg, group.layout, opts);
    const initial = opts.initialWeights?.(group.layout) ?? null;
    const flat = flatten(group.layout.variables);
    const sized = slabSizer(cfg, group.layout, flat, rows, plan.devices.length);
    const layout = await attachWorkers(cfg, group, slab, sized, rows, initial === null, opts);
    opts.abort?.throwIfAborted();
    const weights = masterWeights(slab, layout, flat, initial);
    return sessionOf(cfg, group, opts.cluster ?? soloCluster(), slab, layout, flat, rows, sized, weights, opts.data);
  } catch (err) {
    await group?.stop();
    slab.close();
    throw opts.abort?.aborted ? opts.abort.reason : err;
  } finally {
    opts.abort?.removeEventListener('abort', killAll);
  }
}

/** Spawns a worker per device; each builds the model and reports its layout. */
function startWorkers(cfg: Config, plan: DevicePlan, slab: Slab, opts: SessionOptions): Promise<WorkerGroup> {
  return WorkerGroup.start(
    plan.devices,
    slab,
    {
      backend: plan.backend,
      replaceWasmKernels: cfg.devices.replaceWasmKernels,
      allowSoftwareAdapter: cfg.devices.allowSoftwareAdapter,
      model: workerModel(cfg, opts.classes?.mapping?.classes.length ?? opts.classCount ?? null),
      seed: cfg.training.seed,
      loss: cfg.loss,
      lossWeights: cfg.lossWeights,
      metrics: workerMetrics(cfg.metrics),
      syncBatchNorm: cfg.training.syncBatchNorm,
    },
    (cfg.reliability.startTimeout ?? cfg.reliability.stepTimeout) * 1000,
    { abort: opts.abort, onFailure: opts.onStartFailure, onSpawn: batchNormRelay(cfg, opts.cluster ?? soloCluster())?.attach },
  );
}

/** Checks the metrics, outputs, classes and every split against the model; the first split's row format. */
function dataRowsFitModel(cfg: Config, modelLayout: ModelLayout, opts: SessionOptions): RowFormat {
  checkMetricsFit(cfg, modelLayout);
  checkOutputFeatures(cfg, modelLayout);
  const losses = outputLosses(cfg, modelLayout);
  // Before the labels are checked against the model: a class too many is named as a class.
  if (opts.classes) checkClassesFitModel(opts.classes.mapping, outputsPerSample(modelLayout), opts.classes.key, cfg.model.net !== null);
  // Weighted rows when any split has weights (the training set's class or sample weights, the
  // eval set's own): a split without them is staged with weights of 1, which change nothing.
  const weighted = opts.data.some((ds) => ds.weights !== undefined);
  const rowsAll = opts.data.map((ds, i) => rowFormat(ds, modelLayout, losses, opts.dataKeys[i]!, weighted));
  const rows = rowsAll[0];
  if (!rows) throw new Error('openSession: no dataset given');
  checkSplitRowsAgree(rowsAll, opts.data, opts.dataKeys);
  return rows;
}

type Sizer = (rowsPerRank: number) => SlabLayout;
/** The slab layout for a number of rows per rank: the weights, and each rank's rows in and out. */
function slabSizer(cfg: Config, modelLayout: ModelLayout, flat: FlatLayout, rows: RowFormat, ranks: number): Sizer {
  const hash = layoutHash(modelLayout.variables);
  const rowIn = rowBytesOf(rows);
  // A row's predictions, every output's (predict); with auc, its scores and then its label(s),
  // at most as many again as the (one) output's values; several outputs with auc: every
  // output's scores and labels, one output after another.
  const rowOut = Math.max(
    predictionsPerSample(modelLayout) * 4,
    outputsPerSample(modelLayout) * 4 * (needsScores(cfg.metrics) ? 2 : 1),
    scoreBytesPerRow(cfg, modelLayout),
  );
  return (rowsPerRank: number) => makeSlabLayout(flat, ranks, rowsPerRank * rowIn, rowsPerRank * rowOut, hash);
}

const attachOf = (layout: SlabLayout, rows: RowFormat, writeInitialWeights: boolean): ToWorker => ({ type: 'attach', slab: layout, rows, writeInitialWeights });

/** Sizes the slab for the active ranks and attaches them, again after each worker that fails to start. */
async function attachWorkers(cfg: Config, group: WorkerGroup, slab: Slab, sized: Sizer, rows: RowFormat, publish: boolean, opts: SessionOptions) {
  for (;;) {
    // The lowest active rank publishes the initial weights (rank 0 unless it was retired).
    const writer = group.active[0];
    const layout = sized(rowsPerRank(opts.maxBatch, group.active.length));
    slab.resize(layout, cfg.devices.shmDir);
    try {
      await group.all((rank) => attachOf(layout, rows, rank === writer && publish), 'attach', group.active, group.startDeadlineMs);
      return layout;
    } catch (err) {
      // A worker that fails here failed to start, as in init: restarted or retired, then
      // every rank attaches again (to a slab sized for the survivors).
      if (!(err instanceof GroupFailure) || opts.abort?.aborted) throw err instanceof GroupFailure ? err.failures[0] : err;
      for (const f of err.failures) await group.recoverStart(f, opts.onStartFailure, opts.abort);
    }
  }
}

interface Master {
  inPlace: Float32Array | null; // the slab's weights region, when mapped
  weights: SharedArrayBuffer | null; // else the copy shared with the reduce threads
  master: Float32Array;
}

/** The master weights, holding the initial ones (a checkpoint's, or those the writer published). */
function masterWeights(slab: Slab, layout: SlabLayout, flat: FlatLayout, initial: Float32Array | null): Master {
  const inPlace = slab.floats(layout.weights, flat.total);
  const weights = inPlace ? null : new SharedArrayBuffer(flat.total * 4);
  const master = inPlace ?? new Float32Array(weights!);
  if (initial) {
    master.set(initial);
    if (!inPlace) slab.write(layout.weights, master);
  } else if (!inPlace) {
    slab.read(layout.weights, master);
  }
  return { inPlace, weights, master };
}

/** The optimizer's slots, the EMA and the reduce threads that update them with the master weights. */
function reduceState(cfg: Config, slab: Slab, layout: SlabLayout, flat: FlatLayout, { weights, master }: Master) {
  const rule = makeUpdateRule(cfg.optimizer);
  const slotBuffers = rule.slotInit.map(() => new SharedArrayBuffer(flat.trainable * 4));
  const slots = slotBuffers.map((b, k) => new Float32Array(b).fill(rule.slotInit[k]!));
  const emaBuffer = cfg.training.ema === null ? null : new SharedArrayBuffer(flat.total * 4);
  const ema = emaBuffer ? new Float32Array(emaBuffer) : null;
  ema?.set(master);
  const shared: ReduceShared = {
    fd: slab.fd,
    slab: layout,
    optimizer: cfg.optimizer,
    weights,
    slots: slotBuffers,
    ema: emaBuffer,
    emaDecay: cfg.training.ema ?? 0,
    gradSum: new SharedArrayBuffer(flat.trainable * 4),
  };
  return { slots, ema, pool: new ReducePool(shared, os.availableParallelism(), cfg.training.clipNorm) };
}

/** The session over what was set up: its weights, slab and workers, swapped, grown and closed together. */
function sessionOf(
  cfg: Config,
  g: WorkerGroup,
  cluster: Cluster,
  slab: Slab,
  layout: SlabLayout,
  flat: FlatLayout,
  rows: RowFormat,
  sized: Sizer,
  mw: Master,
  data: Dataset[],
) {
  const { inPlace, master } = mw;
  const { slots, ema, pool } = reduceState(cfg, slab, layout, flat, mw);
  const session: Session = {
    cfg,
    group: g,
    cluster,
    slab,
    layout,
    flat,
    rows,
    stager: new Stager(slab, layout, rows),
    master,
    slots,
    ema,
    pool,
    weightsVersion: 0,
    stateVersion: 0,
    shards: (n) => cluster.shards(n, g.active),
    attachMessage: () => attachOf(layout, rows, false),
    async growInputs(rowsPerRank: number) {
      const bigger = sized(rowsPerRank);
      if (bigger.inputBytes <= layout.inputBytes) return;
      // Inputs and outputs sit after the weights, gradients and state, which keep their offsets.
      slab.resize(bigger, cfg.devices.shmDir);
      layout = bigger;
      session.layout = bigger;
      session.stager = new Stager(slab, bigger, rows);
      await g.all(() => attachOf(layout, rows, false), 'attach (reshard)', g.active, g.startDeadlineMs);
    },
    async withWeights<T>(w: Float32Array, fn: () => Promise<T>): Promise<T> {
      const saved = master.slice();
      const bump = () => {
        session.weightsVersion++;
        session.stateVersion++;
      };
      slab.write(layout.weights, w);
      bump();
      try {
        return await fn();
      } finally {
        master.set(saved);
        if (!inPlace) slab.write(layout.weights, master);
        bump();
      }
    },
    async close() {
      await Promise.all(data.flatMap((ds) => (ds.pipeline ? [ds.pipeline.close()] : [])));
      await pool.destroy();
      await g.stop();
      slab.close();
    },
  };
  return session;
}
