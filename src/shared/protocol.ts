// The control protocol between the coordinator and its workers.
//
// Each worker has one control pipe (a socket pair at stdio fd 4) carrying msgpack frames of
// the messages below; tensors never travel on it, they go through the slab (fd 3). With
// training.syncBatchNorm a second socket (fd 5) carries the BatchNorm exchange, whose frames are
// written down beside their code in batch-norm-frames.ts.
//
// Start:
//   a) coordinator → worker  `init`      : who you are, how to build the model, which backend
//   b) worker → coordinator  `ready`     : the backend and device it computes on, the model
//                                           layout (variables, shapes, topology)
//      The coordinator checks that every rank reported the same layout and, on GPUs, the adapter
//      it was pinned to, then sizes the slab.
//   c) coordinator → worker  `attach`    : the slab layout; the lowest active rank (rank 0
//                                           unless it was retired) also writes its initial
//                                           weights into the weights region (they become the
//                                           master weights, the same for every worker); on
//                                           resume, and in eval and predict, no rank does: the
//                                           coordinator writes the checkpoint's (or saved
//                                           model's) weights
//   d) worker → coordinator  `attached`
// Each step:
//   e) coordinator → worker  `step`      : this rank's shard is n rows in input buffer `slot`;
//                                           refresh weights first if `weightsVersion` changed
//   f) worker → coordinator  `grads`     : grads[rank] and state[rank] are written
//      The coordinator sums grads in rank order, applies the optimizer, writes new weights.
// Evaluation and prediction chunks work like steps without gradients:
//   g) coordinator → worker  `eval`      → worker → coordinator `evaluated` (sums)
//      coordinator → worker  `predict`   → worker → coordinator `predicted` (rows in output[rank]:
//                                           the n rows of output 0, then of output 1, ... in the
//                                           model's output order; the coordinator splits them)
// After a failure the coordinator may restart a rank (a new process gets `init` and `attach`)
// or re-`attach` the survivors to a slab with larger input buffers (reshard).
// End:
//   h) coordinator → worker  `shutdown`  : the worker exits 0. When the pipe closes for any
//                                           other reason, the worker exits at once, so no
//                                           orphan ever holds a GPU.
// Any failure in a worker is reported as `error` (rank, phase, message, stack), then it exits.

import type { BackendName } from './backends-table.ts';
import type { LossSpec } from './losses-table.ts';
import type { AdapterInfo } from './adapters.ts';
import type { ModelLayout, SlabLayout } from './layout.ts';
import type { NetSpec } from '../nets/net-options.ts';

export type RowDtype = 'float32' | 'int32' | 'uint8';

/** One block of an input buffer: the n rows of one array of the shard. */
export interface RowPart {
  role: 'input' | 'target' | 'weight';
  name: string; // the model's input or output it feeds or is compared with; 'weight' for the weights
  dtype: RowDtype;
  shape: number[]; // per row, without the batch dimension (an input's: the model's, rows are reshaped to it)
}

/**
 * How a shard's rows are laid out in an input buffer: for each part in order, its n rows. The
 * parts are the model's inputs, then its outputs' targets (none in a predict run), then, when
 * rows are weighted, one float32 loss weight per row (the loss is then Σ w_i · l_i; a split
 * without weights in a weighted run is staged with 1s). One input and one output is the case of
 * one part of each.
 */
export interface RowFormat {
  parts: RowPart[];
}

/**
 * What a worker computes in `eval` beyond the shipped figures (config `metrics`); null in `init`
 * when the config names no metrics.
 */
export interface WorkerMetrics {
  counts: boolean; // per-class true/false positives and false negatives (precision, recall, f1)
  scores: boolean; // each row's scores and label into output[rank] (auc)
  custom: { module: string; keyPath: string }[]; // custom metric modules: default export (yTrue, yPred, tf) => named sums
}

/** coordinator → worker */
export interface InitMessage {
  type: 'init';
  rank: number;
  workers: number;
  gpu: string; // the CUDA_VISIBLE_DEVICES value this worker was given
  simulated: boolean;
  backend: BackendName;
  replaceWasmKernels: boolean; // devices.replaceWasmKernels
  allowSoftwareAdapter: boolean; // devices.allowSoftwareAdapter (webgpu)
  model: { module: string | null; json: string | null; net: NetSpec | null; customLayers: string | null };
  seed: number;
  loss: LossSpec; // one loss for every output, or one per output name
  lossWeights: Record<string, number> | null; // per output name (default 1)
  metrics: WorkerMetrics | null;
  syncBatchNorm: boolean; // training.syncBatchNorm: BatchNorm statistics summed with the step's other workers over fd 5 (batch-norm-frames.ts)
}

/** worker → coordinator */
export interface ReadyMessage {
  type: 'ready';
  rank: number;
  backend: string; // the backend actually in use
  adapter: AdapterInfo | null; // webgpu: the adapter it computes on; null on other backends
  pid: number;
  layout: ModelLayout;
  ms: number;
}

/** coordinator → worker */
export interface AttachMessage {
  type: 'attach';
  slab: SlabLayout;
  rows: RowFormat; // the parts of a shard's rows; each input part's row shape is the model's: rows are reshaped to it
  writeInitialWeights: boolean;
}

/** worker → coordinator */
export interface AttachedMessage {
  type: 'attached';
  rank: number;
}

/** coordinator → worker */
export interface StepMessage {
  type: 'step';
  step: number;
  n: number; // rows in this rank's shard (never 0: a rank with none is not sent the step)
  batch: number; // the step's n, its rows over every rank (B, or fewer in an epoch's short last batch): the loss is summed over the shard and divided by it
  slot: 0 | 1; // which of the rank's two input buffers holds the shard
  weightsVersion: number; // of the trainable weights
  stateVersion: number; // of the non-trainable weights (often frozen: then they never reload)
  micro: number; // run the shard as this many micro-batches, summing their gradients (accumulation)
}

/** worker → coordinator */
export interface GradsMessage {
  type: 'grads';
  rank: number;
  step: number;
  lossSum: number; // Σ per-sample loss over the shard, each times its weight when rows are weighted (regularisation excluded)
  n: number;
  finite: boolean; // every gradient value is finite
  stateChanged: boolean; // the step changed non-trainable weights (BatchNorm statistics): state[rank] holds them
  ms: number; // the whole step in the worker: refresh + forward/backward + write
  refreshMs: number; // reading new weights from the slab into the model
  writeMs: number; // gradients and state out of tfjs and into the slab
}

/** coordinator → worker */
export interface EvalMessage {
  type: 'eval';
  id: number;
  n: number;
  topK: number;
  slot: 0 | 1;
  weightsVersion: number;
  stateVersion: number;
}

/**
 * One output's figures over a rank's rows, as sums (a model with several outputs sends one per
 * output, in the model's order). Which are measured follows the output's own loss, as the
 * figures of a model with one output follow its loss: `correct` 0 when the loss has no classes
 * (meanSquaredError), `topKCorrect` 0 unless the loss is categorical with more classes than k;
 * the rest only with `init.metrics`, and only where the loss suits them (no counts nor scores for
 * meanSquaredError).
 */
export interface OutputSums {
  lossSum: number; // Σ w_i · l_k,i over the rows (w_i the eval set's sample weights, 1 without); its loss weight not applied
  correct: number; // rows predicted right
  absErrorSum: number; // Σ mean absolute error per row
  topKCorrect: number; // rows whose class is among the k most probable
  sqErrorSum: number; // Σ mean squared error per row (with init.metrics, else 0)
  counts: { tp: number[]; fp: number[]; fn: number[] } | null; // per class (or per output of a binary loss); precision, recall, f1
  scored: number; // rows m whose scores went to output[rank] (auc), else 0 (see EvaluatedMessage.outputs)
  custom: Record<string, number>[] | null; // per custom module, its named sums over these rows and this output
}

/** worker → coordinator. Sums, so totals over ranks are exact: every sample counted once. */
export interface EvaluatedMessage {
  type: 'evaluated';
  rank: number;
  id: number;
  n: number;
  lossSum: number; // Σ per-sample loss (Σ_k lossWeights[k] · l_k), each times its weight when rows are weighted
  // The figures of a model with one output (0, or null, with several: see `outputs`):
  correct: number; // samples predicted right (accuracy); 0 where the loss has no accuracy
  absErrorSum: number; // Σ mean absolute error per sample
  topKCorrect: number; // samples whose class is among the k most probable; 0 without classes
  // With `init.metrics` only (else 0, null, 0, null):
  sqErrorSum: number; // Σ mean squared error per sample (rmse)
  counts: { tp: number[]; fp: number[]; fn: number[] } | null; // per class, or per output of a binary loss
  scored: number; // rows m written to output[rank]: m·K scores, then m labels (class indices) or m·K (binary 0/1)
  custom: Record<string, number>[] | null; // per custom module, its named sums over this rank's rows
  /**
   * A model with several outputs: each output's sums, in the model's output order; the fields
   * above but n and lossSum are then 0 and null. null with one output. With auc, output[rank]
   * holds the outputs' scored rows one output after another, in the model's order: for each
   * output k with scored_k > 0, its scored_k·width_k scores, then its labels (scored_k class
   * indices, or scored_k·width_k 0/1 for binaryCrossentropy); the next output's start right after.
   */
  outputs: OutputSums[] | null;
}

/**
 * coordinator → worker: predict the n rows in input buffer `slot` (the model's inputs alone, no
 * targets). Every output of the model goes to output[rank] as float32 rows, one output after
 * another in the model's order: output 0's n rows, then output 1's n rows, ... (the region is
 * sized for the sum of every output's values per row).
 */
export interface PredictMessage {
  type: 'predict';
  id: number;
  n: number;
  slot: 0 | 1;
  weightsVersion: number;
  stateVersion: number;
}

/** worker → coordinator */
export interface PredictedMessage {
  type: 'predicted';
  rank: number;
  id: number;
  n: number;
}

/** coordinator → worker */
export interface ShutdownMessage {
  type: 'shutdown';
}

/** worker → coordinator */
export interface ErrorMessage {
  type: 'error';
  rank: number;
  phase: string; // the worker's: init | attach | step <k> | eval | predict (the coordinator's WorkerError also names init (restart), attach (restart), attach (reshard))
  message: string;
  code?: string; // an MgpuError code, when the worker raised one
  hint?: string;
  stack?: string;
}

export type ToWorker = InitMessage | AttachMessage | StepMessage | EvalMessage | PredictMessage | ShutdownMessage;
export type ToCoordinator = ReadyMessage | AttachedMessage | GradsMessage | EvaluatedMessage | PredictedMessage | ErrorMessage;
