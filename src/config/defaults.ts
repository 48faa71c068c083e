// Defaults of the experiment config, and which optimizer/schedule keys each name reads: a key
// the chosen optimizer or schedule does not read is rejected rather than silently ignored.

import type {
  CheckpointConfig,
  DevicesConfig,
  Every,
  MetricAverage,
  MetricName,
  MonitorMode,
  ReliabilityConfig,
  OptimizerConfig,
  OptimizerName,
  ScheduleConfig,
  ScheduleName,
} from './types.ts';
import { METRICS, METRIC_NAMES } from '../shared/metrics-table.ts';

export const OPTIMIZER_PARAMS: Record<OptimizerName, readonly (keyof OptimizerConfig)[]> = {
  sgd: ['learningRate'],
  momentum: ['learningRate', 'momentum', 'nesterov'],
  adam: ['learningRate', 'beta1', 'beta2', 'epsilon'],
  adamw: ['learningRate', 'beta1', 'beta2', 'epsilon', 'weightDecay'],
  rmsprop: ['learningRate', 'decay', 'momentum', 'epsilon', 'centered'],
  adagrad: ['learningRate', 'initialAccumulatorValue', 'epsilon'],
};

export const SCHEDULE_PARAMS: Record<ScheduleName, readonly (keyof ScheduleConfig)[]> = {
  constant: ['warmupSteps'],
  exponential: ['decaySteps', 'decayRate', 'staircase', 'warmupSteps'],
  cosine: ['decaySteps', 'alpha', 'warmupSteps'],
  plateau: ['factor', 'patience', 'minLr', 'cooldown', 'monitor', 'mode', 'minDelta', 'warmupSteps'],
};

export function optimizerDefaults(name: OptimizerName): OptimizerConfig {
  const slow = name === 'adam' || name === 'adamw' || name === 'rmsprop';
  return {
    name,
    learningRate: slow ? 0.001 : 0.01,
    momentum: name === 'momentum' ? 0.9 : 0,
    nesterov: false,
    beta1: 0.9,
    beta2: 0.999,
    epsilon: 1e-7,
    weightDecay: 0.01,
    decay: 0.9,
    centered: false,
    initialAccumulatorValue: 0.1,
  };
}

/** decaySteps has no default: it is required by the schedules that read it, and 0 elsewhere. */
export function scheduleDefaults(name: ScheduleName): ScheduleConfig {
  return {
    name,
    decaySteps: 0,
    decayRate: 0.96,
    staircase: false,
    alpha: 0,
    warmupSteps: 0,
    // plateau: Keras's ReduceLROnPlateau defaults (monitor val_loss)
    factor: 0.1,
    patience: 10,
    minLr: 0,
    cooldown: 0,
    monitor: 'eval.loss',
    mode: 'min',
    minDelta: 1e-4,
  };
}

/**
 * The figures a monitor (checkpoint.best, training.earlyStopping, the plateau schedule) can
 * name: fields of metrics.jsonl's eval line, and the way each improves (its default mode).
 */
export const MONITORS: Readonly<Record<string, MonitorMode>> = {
  'eval.loss': 'min',
  'eval.accuracy': METRICS.accuracy.direction,
  'eval.top_k': METRICS.topK.direction,
  'eval.mae': METRICS.mae.direction,
};
/**
 * How each built-in metric of `metrics:` improves, when a monitor names it (`eval.<key>` as the
 * eval line logs it: eval.f1_macro, eval.auc, eval.rmse). A custom metric's values
 * (`eval.<name>.<key>`) have no known direction: their monitor needs a mode.
 */
export const METRIC_DIRECTION: Readonly<Record<MetricName, MonitorMode>> = Object.fromEntries(METRIC_NAMES.map((n) => [n, METRICS[n].direction])) as Record<
  MetricName,
  MonitorMode
>;

/** Keras's EarlyStopping defaults (its monitor val_loss is eval.loss here). */
export const EARLY_STOPPING_DEFAULTS = { monitor: 'eval.loss', patience: 0, minDelta: 0, restoreBest: false };

export const DEVICES_DEFAULTS: DevicesConfig = {
  gpus: 'all',
  simulate: 0,
  backend: 'auto',
  shmDir: '/dev/shm',
  replaceWasmKernels: true,
  workersPerGpu: 1,
  allowSoftwareAdapter: false,
  allowUnpinned: false,
  oversubscribe: false,
};
export const LOG_DEFAULTS = { every: 10 };
export const EVAL_DEFAULTS = { every: 0, batchSize: null, topK: 5, useEma: false };
/** eval.every when there is an eval set: at the end of each epoch, as Keras's validation_data. */
export const EVAL_EVERY_WITH_EVAL_SET: Every = { epochs: 1 };
export const TRAINING_DEFAULTS = {
  dropLast: false,
  seed: 0,
  accumulateSteps: 1,
  syncBatchNorm: false,
  clipNorm: null,
  ema: null,
  earlyStopping: null,
  classWeights: null,
};
export const CHECKPOINT_DEFAULTS: CheckpointConfig = { every: 0, keep: 3, best: null };
export const RELIABILITY_DEFAULTS: ReliabilityConfig = {
  onWorkerFailure: 'restart',
  maxRestarts: 3,
  stepTimeout: 600,
  startTimeout: null,
  stallFactor: 10,
  stallMinSeconds: 10,
  onNonFinite: 'stop',
  maxSkippedFraction: 0.5,
};
/** The metrics that take `average` (macro or micro), and its default. */
export const AVERAGED_METRICS: readonly MetricName[] = METRIC_NAMES.filter((n) => METRICS[n].averaged);
export const DEFAULT_AVERAGE: MetricAverage = 'macro';
/** The metrics that need classes: refused with a regression loss (meanSquaredError). */
export const CLASS_METRICS: readonly MetricName[] = METRIC_NAMES.filter((n) => METRICS[n].suits !== 'any');
/** A custom metric's name prefixes its values in the log (`<name>.<key>`): no dots in it. */
export const METRIC_MODULE_NAME = /^[A-Za-z0-9_-]+$/;

/** Used when neither training.epochs nor training.steps is set. */
export const DEFAULT_EPOCHS = 1;

/** The mnist package holds 10,000 digits; a split is [offset, offset + count) of them. */
export const MNIST_SIZE = 10000;
export const MNIST_DEFAULTS = { offset: 0, labels: 'onehot' as const };
/** A synthetic split's defaults: its sample count, classes and label form. */
export const SYNTHETIC_DEFAULTS = { count: 1024, classes: 10, labels: 'onehot' as const };
/** A data module is read whole before step 0: past this many samples it is refused (a generator that never ends). */
export const DATA_MODULE_DEFAULTS = { maxSamples: 1_000_000 };

export const DEFAULT_NAME = 'run';
export const NAME_PATTERN = /^[A-Za-z0-9._-]+$/;
