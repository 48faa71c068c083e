// mgpu-train as a library: `import { train, evaluate, predict, loadConfig, validateConfig } from
// 'mgpu-train'`. lib/index.mjs registers tsx's loader and re-exports this module, so a plain
// Node ESM program needs no loader of its own. Each function does what the command of the same
// name does, from the same config (a YAML/JSON file, or an object of the same schema, checked
// by the same validation), and returns its result instead of printing it alone. Failures are
// MgpuError (ConfigError for the config) with a stable code and a hint; formatError prints one
// as the command does.
import path from 'node:path';
import { writeFileAtomically } from './shared/atomic-write.ts';
import { loadConfig as loadConfigFile, configToRaw } from './config/load.ts';
import { applyOverrides } from './config/overrides.ts';
import type {
  CheckpointConfig,
  Config,
  DevicesConfig,
  ImageAugment,
  ImageSource,
  ShardHttpOptions,
  TfrecordFeatures,
  LossSpec,
  NetConfig,
  NpyFiles,
  OptimizerConfig,
  OptimizerName,
  ReliabilityConfig,
  ScheduleConfig,
  TrainingConfig,
} from './config/types.ts';
import { isMapping } from './config/checker.ts';
import type { NetName } from './nets/net-names.ts';
import { validateConfig as validateRaw } from './config/validate.ts';
import { ConfigError, MgpuError, formatError } from './shared/errors.ts';
import { launchedSize } from './shared/mpi.ts';
import type { NdArray } from './shared/npy.ts';
import { memoryColumn } from './data/columns.ts';
import { mappedNpy } from './data/mapped-npy.ts';
import { CALLBACK_NAMES, type AbortSignalLike, type StopRequest, type TrainCallbacks } from './coordinator/run/callbacks.ts';
import { openCluster, type Cluster } from './coordinator/devices/cluster.ts';
import type { EvalResult as InternalEvalResult } from './coordinator/engine/eval-result.ts';
import {
  checkOutput,
  checkOutputFitsModel,
  describeOutputs,
  labelsForNames,
  modelDirOf,
  namePredictions,
  outputKind,
  predictFileInput,
  predictionsCsv,
  predictRows,
  runEval,
  wantsNames,
  writePredictions,
} from './coordinator/inference.ts';
import type { NamedArray } from './data/rows.ts';
import { imagePredictionsCsv } from './data/images/predict-images.ts';
import { readLabels } from './data/classes.ts';
import { makeProgress, type Progress } from './coordinator/console/progress.ts';
import { resumeConfig } from './coordinator/run/resume.ts';
import { train as runTraining } from './coordinator/train.ts';

export { MgpuError, ConfigError, formatError };
// The names model.net takes. The builders are not exported: their types are tfjs's, whose
// declarations do not type-check in a strict consumer (exactOptionalPropertyTypes), and the
// public types import nothing of tfjs.
export { NET_NAMES } from './nets/net-names.ts';
export type { NetName } from './nets/net-names.ts';
export type { ErrorCode } from './shared/errors.ts';
export type {
  Config,
  CustomLoss,
  DataSource,
  ImageAugment,
  ImageSource,
  ShardHttpOptions,
  TfrecordFeatures,
  TfrecordSource,
  LossEntry,
  LossName,
  LossSpec,
  NpyFiles,
  OptimizerName,
  ScheduleName,
  BackendName,
} from './config/types.ts';
export type {
  AbortSignalLike,
  CallbackName,
  CallbackResult,
  CheckpointInfo,
  EvalFigures,
  RunControl,
  StepFigures,
  StopRequest,
  TrainCallbacks,
} from './coordinator/run/callbacks.ts';

/**
 * An evaluation: mean loss and metrics over every sample of the eval data. A copy of
 * eval-result.ts's, so that the declarations a consumer reads stay small and need no @types/node;
 * SAME_EVAL_RESULT below fails the type check when the two differ.
 */
export interface EvalResult {
  samples: number;
  loss: number; // mean per-sample loss (regularisation not included)
  accuracy: number | null; // null for losses without classes (mean squared error), and with several outputs (see outputs)
  topK: number | null; // top-k accuracy; null without classes or with k >= classes, and with several outputs
  k: number;
  mae: number; // NaN for a model with several outputs (each output's is in outputs)
  /** A model with several outputs: each output's mean loss (without its loss weight), by output name; else null. */
  outputLosses: Record<string, number> | null;
  /** A model with several outputs: each output's figures, by output name, in the model's order; else null. */
  outputs: Record<string, OutputFigures> | null;
  /**
   * The config's metrics (its `metrics` key), keyed as metrics.jsonl logs them; several outputs:
   * each metric per output it suits, `<key>.<output>`. null without.
   */
  metrics: Record<string, number | null> | null;
}
/** One output's figures, for a model with several (EvalResult.outputs). */
export interface OutputFigures {
  loss: number; // its mean loss, weighted by the eval set's sample weights, without its loss weight
  accuracy: number | null; // null when its loss has no classes (mean squared error)
  topK: number | null; // top-k accuracy; null unless its loss is categorical with more classes than k
  mae: number;
}
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _SAME_EVAL_RESULT: Same<EvalResult, InternalEvalResult> = true;

// ---- the config ------------------------------------------------------------------------------

/** A data source as the config file writes it (paths relative to `cwd`, or the config file's directory). */
export type DataSourceInput =
  | { type: 'npy'; features: NpyFiles; labels: NpyFiles; weights?: string | null }
  | { type: 'csv'; path: string; label: string; labelType?: 'index' | 'float' | 'class'; weight?: string | null }
  | { type: 'module'; module: string }
  | { type: 'mnist'; offset?: number; count?: number; labels?: 'onehot' | 'index' }
  | { type: 'synthetic'; shape: number[]; count?: number; classes?: number; labels?: 'onehot' | 'index' }
  // a folder of class folders (dir) or a CSV of path,label (list): docs/config.md#image-folders
  | ({ type: 'images'; size: [number, number] } & Partial<Omit<ImageSource, 'type' | 'size' | 'augment'>> & { augment?: Partial<ImageAugment> | null })
  // TFRecord shards of tf.train.Example (files: a glob or brace range), decoded as images: docs/config.md#tfrecord-shards
  | ({
      type: 'tfrecord';
      files: string;
      image: string;
      label: string;
      size: [number, number];
      labelOffset?: number;
      http?: Partial<ShardHttpOptions>;
    } & Partial<Omit<ImageSource, 'type' | 'size' | 'augment' | 'dir' | 'list'>> & { augment?: Partial<ImageAugment> | null })
  // the same, its float_list / int64_list features as the model's named inputs and outputs
  | { type: 'tfrecord'; files: string; x: TfrecordFeatures; y: TfrecordFeatures; http?: Partial<ShardHttpOptions> }
  // WebDataset tar shards (shards: a glob or brace range), image: an extension or a list, label: cls: docs/config.md#webdataset-shards
  | ({
      type: 'webdataset';
      shards: string;
      image: string | string[];
      label?: 'cls';
      size: [number, number];
      labelOffset?: number;
      http?: Partial<ShardHttpOptions>;
    } & Partial<Omit<ImageSource, 'type' | 'size' | 'augment' | 'dir' | 'list'>> & { augment?: Partial<ImageAugment> | null });

/** An experiment config as an object: the schema of the YAML file (docs/config.md). */
export interface ConfigInput {
  name?: string;
  model: (
    | { module: string; json?: null; net?: null }
    | { json: string; module?: null; net?: null }
    | ({ net: NetName; module?: null; json?: null } & Partial<Omit<NetConfig, 'name'>>)
  ) & { customLayers?: string | null };
  loss: LossSpec; // one loss, or one per output name
  lossWeights?: Record<string, number> | null;
  data: {
    train: DataSourceInput;
    eval?: DataSourceInput | null;
    evalFraction?: number | null;
    classes?: string[] | null;
    threads?: number | null;
    prefetch?: number;
  };
  training: Partial<TrainingConfig> & { batchSize: number };
  optimizer: Partial<OptimizerConfig> & { name: OptimizerName };
  schedule?: Partial<ScheduleConfig>;
  devices?: Partial<DevicesConfig>;
  log?: Partial<Config['log']>;
  eval?: Partial<Config['eval']>;
  checkpoint?: Partial<CheckpointConfig>;
  reliability?: Partial<ReliabilityConfig>;
  runDir?: string;
}

export interface ConfigOptions {
  /** Overrides, as `--set` takes them: `'optimizer.learningRate=3e-4'`, `'devices.simulate=2'`. */
  set?: string[];
  /** Relative paths resolve against this (a config file's against its own directory); default process.cwd(). */
  cwd?: string;
}

/** Reads, overrides and validates a config file (YAML or JSON), as `mgpu-train train <file>` does. */
export async function loadConfig(file: string, opts: ConfigOptions = {}): Promise<Config> {
  return loadConfigFile(file, opts.set ?? [], opts.cwd ?? process.cwd());
}

/**
 * Validates a config object of the file's schema: every default applied, every path resolved,
 * and anything unknown, mistyped or out of range a ConfigError naming its key path.
 */
export function validateConfig(raw: ConfigInput, opts: ConfigOptions = {}): Config {
  return resolveConfig(raw, opts);
}

/** The `set` overrides, and `runDir` as one (as --run-dir is). */
function setsOf(opts: ConfigOptions & { runDir?: string }): string[] {
  const runDir = opts.runDir === undefined ? [] : [`runDir=${JSON.stringify(path.resolve(opts.cwd ?? process.cwd(), opts.runDir))}`];
  return [...(opts.set ?? []), ...runDir];
}

/** A Config (from loadConfig or validateConfig, perhaps changed since) or a raw object, validated. */
function resolveConfig(input: ConfigInput | Config, opts: ConfigOptions & { runDir?: string }): Config {
  const cwd = opts.cwd ?? process.cwd();
  const sets = setsOf(opts);
  if (!isMapping(input)) {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a JavaScript caller can pass anything, null too
    const got = input === null ? 'null' : Array.isArray(input) ? 'a list' : typeof input;
    throw new ConfigError('', `expected a config object (the schema of the config file) or a config file's path, got ${got}`);
  }
  // A resolved Config is checked again from its raw form, so that a changed copy is checked too.
  const resolved = Object.hasOwn(input, 'configPath');
  let raw: Record<string, unknown>;
  try {
    raw = resolved ? configToRaw(input as Config) : input;
  } catch {
    throw new ConfigError(
      'configPath',
      'is set, but the object is not a whole resolved Config (as loadConfig and validateConfig return)',
      'pass a config object without configPath, or the Config loadConfig/validateConfig returned',
    );
  }
  const configPath = resolved ? (input as Config).configPath : null;
  if (configPath !== null && typeof configPath !== 'string') throw new ConfigError('configPath', 'expected the path of the config file, or null');
  return validateRaw(sets.length ? applyOverrides(raw, sets) : raw, { configPath, cwd });
}

async function configFrom(config: string | ConfigInput | Config, opts: ConfigOptions & { runDir?: string }): Promise<Config> {
  return typeof config === 'string' ? loadConfigFile(config, setsOf(opts), opts.cwd ?? process.cwd()) : resolveConfig(config, opts);
}

// ---- what a run prints -------------------------------------------------------------------------

export interface PrintOptions {
  /**
   * What the run prints, the lines the command prints: true (default) to stdout, false nothing,
   * or a function that gets each line (progress lines every `log.every` steps).
   */
  print?: boolean | ((line: string) => void);
}

function progressFor(print: PrintOptions['print'], every: number): Progress {
  if (print === false) return { step() {}, line() {}, done() {} };
  if (typeof print === 'function') {
    return {
      step: (step, total, text) => {
        if (step % every === 0 || step === total) print(`step ${step}/${total} ${text}`);
      },
      line: (text) => print(text),
      done() {},
    };
  }
  return makeProgress(every);
}

// ---- train -----------------------------------------------------------------------------------

export interface TrainOptions extends TrainCallbacks, ConfigOptions, PrintOptions {
  /** Aborting it stops the run after the step in progress, with a checkpoint, as Ctrl-C does. */
  signal?: AbortSignalLike;
  /** Where the run writes (as --run-dir), relative to `cwd`; default the config's runDir. */
  runDir?: string;
  /** Continue from the newest checkpoint of the run (true), or of this directory, with the run's own config (as --resume). */
  resume?: boolean | string;
  /** On resume, accept changes of these keys that the checkpoint fixes (as --allow-changed). */
  allowChanged?: string[];
  /** A new run into a run directory that holds another run removes that run's files first (as --overwrite); else it is refused (E_RUN_EXISTS). */
  overwrite?: boolean;
}

export interface TrainResult {
  runDir: string;
  /** runDir/final/model.json, for tf.loadLayersModel; null when the run was stopped before its end. */
  modelPath: string | null;
  /** Steps completed (counted from the run's start, a resumed run's earlier ones included). */
  steps: number;
  /** The loss of the last step. */
  finalLoss: number;
  /** The evaluation after the last step; null without eval data or when stopped. */
  eval: EvalResult | null;
  /** The final weights, flat: the trainable variables, then the others, in the model's order. */
  weights: Float32Array;
  ema: Float32Array | null;
  /** Why the run stopped before its last step (its checkpoint is in runDir/checkpoints), or null. */
  stopped: StopRequest | null;
  skippedSteps: number[];
  restarts: number;
  /** A resume of a run that had already run all its steps: nothing was started or written. */
  alreadyFinished: boolean;
}

const TRAIN_OPTIONS = ['signal', 'runDir', 'resume', 'allowChanged', 'overwrite', 'set', 'cwd', 'print', ...CALLBACK_NAMES];

/**
 * Trains the model a config describes, as `mgpu-train train` does, and returns the result.
 * The callbacks run on this process (MPI rank 0 alone when several machines run); see TrainCallbacks.
 * It installs no signal handler: to stop on Ctrl-C, abort `signal` from your own.
 */
export async function train(config: string | ConfigInput | Config, options: TrainOptions = {}): Promise<TrainResult> {
  checkOptions('train', options, TRAIN_OPTIONS);
  const cwd = options.cwd ?? process.cwd();
  const fileCfg = await configFrom(config, options);
  const sets = setsOf(options);
  const allowChanged = options.allowChanged ?? [];
  if (allowChanged.length > 0 && !options.resume) {
    throw new MgpuError('E_USAGE', 'train(): allowChanged applies to resume only', {
      hint: 'a new run takes any config; drop allowChanged, or add resume: true',
    });
  }
  if (options.overwrite && options.resume) {
    throw new MgpuError('E_USAGE', 'train(): overwrite and resume exclude each other: resume continues the run in the directory, overwrite replaces it', {
      hint: 'drop one of them',
    });
  }
  const resumed = options.resume ? resumeConfig(options.resume === true ? fileCfg.runDir : path.resolve(cwd, options.resume), fileCfg, sets, cwd) : null;
  const cfg = resumed?.config ?? fileCfg;
  const callbacks: TrainCallbacks = {};
  // eslint-disable-next-line @typescript-eslint/unbound-method -- a callback is called as a plain function, as documented
  for (const name of CALLBACK_NAMES) if (options[name]) (callbacks as Record<string, unknown>)[name] = options[name];
  // Under mpirun/srun with several processes this is one machine of several, as with the command.
  const cluster: Cluster = openCluster(cfg.reliability);
  const progress = cluster.rank === 0 ? progressFor(options.print, cfg.log.every) : progressFor(false, 1);
  try {
    if (resumed?.notApplied) progress.line(resumed.notApplied);
    const r = await runTraining(cfg, progress, {
      resume: resumed?.checkpoint ?? null,
      allowChanged,
      cluster,
      signal: options.signal ?? null,
      callbacks,
      overwrite: options.overwrite ?? false,
      resumeHint: `train(config, { ${options.runDir === undefined ? '' : `runDir: ${JSON.stringify(cfg.runDir)}, `}resume: true })`,
    });
    cluster.close();
    const stopped = r.stopRequest ?? (r.interrupted ? { by: 'cluster' as const, reason: `another machine of the run was stopped by ${r.interrupted}` } : null);
    return {
      runDir: r.runDir,
      modelPath: r.modelPath,
      steps: r.steps,
      finalLoss: r.finalLoss,
      eval: r.eval,
      weights: r.weights,
      ema: r.ema,
      stopped,
      skippedSteps: r.skippedSteps,
      restarts: r.restarts,
      alreadyFinished: r.alreadyFinished,
    };
  } catch (err) {
    // MPI cannot go on without this rank: as the command does, say why and end the whole job.
    if (cluster.size > 1) {
      console.error(`${formatError(err)} [${cluster.where(cluster.rank)}]`);
      cluster.abort(err instanceof MgpuError ? err.exitCode : 1);
    }
    throw err;
  }
}

// ---- evaluate and predict --------------------------------------------------------------------

export interface ModelOptions extends ConfigOptions, PrintOptions {
  /** A checkpoint, a run directory (its newest checkpoint) or a LayersModel directory such as runs/<name>/final; relative to `cwd`. */
  checkpoint: string;
  /** Use the checkpoint's EMA weights. */
  ema?: boolean;
}

const MODEL_OPTIONS = ['checkpoint', 'ema', 'set', 'cwd', 'print'];

/** Evaluates a trained model on the config's eval data, sharded over the workers, as `mgpu-train eval` does. */
export async function evaluate(config: string | ConfigInput | Config, options: ModelOptions): Promise<EvalResult> {
  checkOptions('evaluate', options, MODEL_OPTIONS);
  oneMachine('evaluate');
  const cfg = await configFrom(config, options);
  return runEval(cfg, progressFor(options.print, 1), { dir: checkpointDir(options), ema: options.ema ?? false });
}

/** Rows given as values: [rows, ...features]. */
export interface PredictRows {
  data: Float32Array | Int32Array | Uint8Array;
  shape: number[];
}

export interface PredictOptions extends ModelOptions {
  /**
   * The rows: a path (relative to `cwd`; told by what the file holds, as the command's --input:
   * an image file or folder, a TFRecord or WebDataset tar shard, an .npy file) or values with
   * their shape ([rows, ...features]), for a model with one input; or, for any model, an .npy
   * path or values per input name (model.inputNames), every input named once, all with the same
   * row count: `{ image: 'x_img.npy', meta: 'x_meta.npy' }`.
   */
  input: string | PredictRows | Record<string, string | PredictRows>;
  /**
   * Also write the predictions, checked before any worker starts: a .npy file gets the outputs of
   * a model with one output (float32); a .csv each row's class name and score (`class,score`, as
   * `predict --output x.csv`; the model needs its labels.json and one output); any other path is
   * a directory (created if missing, in an existing one) that gets one `<output name>.npy` per output.
   */
  output?: string;
}

/** One output of the model for every input row, in input order: float32 [rows, ...its shape]. */
export interface PredictOutput {
  values: Float32Array;
  shape: number[];
}

export interface PredictResult {
  /** The model's (first) output for every input row, in input order: float32 [rows, ...outputShape]. */
  values: Float32Array;
  shape: number[];
  /**
   * Every output of the model by its name (model.outputNames), in the model's order (one entry
   * for a model with one output, the same arrays as values and shape). As for any JavaScript
   * object, a name that is an integer ('0') would come first.
   */
  outputs: Record<string, PredictOutput>;
  /** The model's class names (its labels.json, written when it was trained on class names), output i is classes[i]; else null. */
  classes: string[] | null;
  /** With classes: each row's class, the name of its highest output (the first of equal ones); else null. */
  predicted: string[] | null;
}

/** The model's outputs for every input row, in input order, and with class names the class of each row. */
export async function predict(config: string | ConfigInput | Config, options: PredictOptions): Promise<PredictResult> {
  checkOptions('predict', options, [...MODEL_OPTIONS, 'input', 'output']);
  oneMachine('predict');
  const cwd = options.cwd ?? process.cwd();
  const cfg = await configFrom(config, options);
  const output = options.output === undefined ? null : path.resolve(cwd, options.output);
  if (output) checkOutput(output, 'predict(): output');
  const src = { dir: checkpointDir(options), ema: options.ema ?? false };
  // Names asked for (a .csv output) need labels.json, checked before any worker starts.
  const named = output && wantsNames(output) ? labelsForNames(src, 'predict(): output', output) : null;
  const out = progressFor(options.print, 1);
  // A path: images, a shard or an .npy, told by what the file holds, as the command's --input.
  const read =
    typeof options.input === 'string'
      ? await predictFileInput(cfg, options.input, cwd, 'predict(): input')
      : { inputs: inputsOf(options.input, cwd), pipeline: null, images: null };
  const { outputs, values, shape, workers } = await predictRows(
    cfg,
    out,
    src,
    read.inputs,
    'predict(): input',
    (layout) => {
      if (output) checkOutputFitsModel(output, layout, 'predict(): output');
    },
    read.pipeline ?? undefined,
  ).finally(() => read.pipeline?.close());
  // Class names are those of a model with one output.
  const labels = named ?? (outputs.length === 1 ? readLabels(modelDirOf(src)) : null);
  const predicted = labels ? namePredictions(values, shape, labels) : null;
  if (output && named) {
    const csv = predictionsCsv(predicted!.names, predicted!.scores);
    writeFileAtomically(output, read.images ? imagePredictionsCsv(read.images.given, csv) : csv);
  } else if (output) writePredictions(output, outputs);
  out.line(
    `predicted ${shape[0]} rows with ${workers} worker${workers === 1 ? '' : 's'}${output ? ` → ${output}` : ''} (${describeOutputs(outputs, outputs.length > 1 || (output !== null && outputKind(output) === 'dir'))}${labels ? `; ${labels.classes.length} classes from ${labels.from}` : ''})`,
  );
  return {
    values,
    shape,
    outputs: Object.fromEntries(outputs.map((o) => [o.name, { values: o.values, shape: o.shape }])),
    classes: labels ? [...labels.classes] : null,
    predicted: predicted?.names ?? null,
  };
}

/** The input option as arrays: one named '' (a path or values), or one per input name. */
function inputsOf(input: unknown, cwd: string): NamedArray[] {
  const one = (v: unknown, name: string, where: string): NamedArray => {
    if (typeof v === 'string') {
      const file = path.resolve(cwd, v);
      return { name, file, array: mappedNpy(file, 'predict(): input', false) };
    }
    return { name, file: name === '' ? 'the input values' : `the values of input '${name}'`, array: memoryColumn(rowsOf(v, where)) };
  };
  if (typeof input === 'string' || !isMapping(input)) return [one(input, '', 'predict(): input')];
  // Values with a shape, or a typed array as data: one set of rows; any other object names the inputs.
  const { data, shape } = input as { data?: unknown; shape?: unknown };
  if (Array.isArray(shape) || ArrayBuffer.isView(data)) return [one(input, '', 'predict(): input')];
  const entries = Object.entries(input);
  if (entries.length === 0) {
    throw new MgpuError('E_USAGE', 'predict(): input is an empty mapping', {
      hint: "give an .npy path, { data, shape }, or one of those per input name: { image: 'x_img.npy', meta: 'x_meta.npy' }",
    });
  }
  return entries.map(([name, v]) => {
    if (typeof v !== 'string' && !isMapping(v))
      throw new MgpuError('E_USAGE', `predict(): input.${name} is ${v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v}`, {
        hint: 'give each input an .npy path, or { data: Float32Array (or Int32Array, Uint8Array), shape: [rows, ...features] }',
      });
    return one(v, name, `predict(): input.${name}`);
  });
}

function rowsOf(input: unknown, where = 'predict(): input'): NdArray {
  const bad = (what: string) =>
    new MgpuError('E_USAGE', `${where} ${what}`, {
      hint: 'give an .npy path, or { data: Float32Array (or Int32Array, Uint8Array), shape: [rows, ...features] }',
    });
  if (typeof input !== 'object' || input === null) throw bad(`is ${input === null ? 'null' : typeof input}`);
  const { data, shape } = input as { data?: unknown; shape?: unknown };
  const dtype = data instanceof Float32Array ? 'float32' : data instanceof Int32Array ? 'int32' : data instanceof Uint8Array ? 'uint8' : null;
  if (dtype === null) throw bad(`.data is not a Float32Array, Int32Array or Uint8Array`);
  if (!Array.isArray(shape) || shape.length === 0 || !shape.every((d) => Number.isSafeInteger(d) && d >= 0))
    throw bad(`.shape is not a list of sizes like [rows, features]`);
  const dims = shape as number[];
  const size = dims.reduce((a, b) => a * b, 1);
  if (size !== (data as ArrayLike<number>).length) throw bad(`.shape [${dims.join(', ')}] holds ${size} values, .data ${(data as ArrayLike<number>).length}`);
  return { dtype, shape: [...dims], data: data as NdArray['data'] };
}

// ---- shared ----------------------------------------------------------------------------------

function checkpointDir(options: ModelOptions): string {
  if (typeof options.checkpoint !== 'string' || options.checkpoint === '') {
    throw new MgpuError('E_USAGE', 'checkpoint: expected a checkpoint, a run directory or a model directory', {
      hint: "e.g. { checkpoint: 'runs/mnist-mlp/final' }",
    });
  }
  return path.resolve(options.cwd ?? process.cwd(), options.checkpoint);
}

function checkOptions(fn: string, options: unknown, known: readonly string[]): void {
  if (typeof options !== 'object' || options === null) throw new MgpuError('E_USAGE', `${fn}(): the options must be an object`);
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const near = known.find((k) => k.toLowerCase() === key.toLowerCase());
    throw new MgpuError('E_USAGE', `${fn}(): unknown option ${key}`, { hint: `${near ? `did you mean ${near}? ` : ''}the options are ${known.join(', ')}` });
  }
}

function oneMachine(fn: string): void {
  const launch = launchedSize();
  if (launch && launch.size > 1) {
    throw new MgpuError('E_USAGE', `${fn}() runs on one machine, but an MPI launcher started ${launch.size} processes (${launch.by})`, {
      hint: 'only train() runs on several machines; run evaluate and predict without mpirun',
    });
  }
}
