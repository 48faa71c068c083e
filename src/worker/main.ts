// One worker process: a tfjs model replica on one GPU (or a CPU backend when simulated).
// It is started by the coordinator with CUDA_VISIBLE_DEVICES already set, the slab at fd 3 and
// its control pipe at fd 4, and does what the messages of ../shared/protocol.ts say, in order.
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { LayersModel, LayerVariable, Tensor, Variable } from '@tensorflow/tfjs';
import { Channel } from '../shared/channel.ts';
import { MgpuError } from '../shared/errors.ts';
import { flatten, type FlatLayout, type SlabLayout } from '../shared/layout.ts';
import type { AttachMessage, EvalMessage, InitMessage, OutputSums, PredictMessage, StepMessage, ToCoordinator, ToWorker } from '../shared/protocol.ts';
import { streamState, withSeededMathRandom } from '../shared/rng.ts';
import { floatKernels } from '../shared/float-kernels.ts';
import { shardSizes } from '../shared/shard.ts';
import { Slab } from '../shared/slab.ts';
import { pinFromEnvironment } from '../shared/cpu-affinity.ts';
import { loadBackend, type TF } from './backend.ts';
import { checkCustomMetrics, customSums, loadCustomMetrics, metricTensors, unpack, type CustomMetric } from './eval-metrics.ts';
import { checkCustomLosses, loadCustomLosses, type CustomLossModule } from './custom-loss.ts';
import { combined, outputLosses, perOutput, type OutputLoss } from './output-losses.ts';
import { customLayerClasses, knownLayerClasses } from './custom-layers.ts';
import { describe, loadModel } from './model-loader.ts';
import { checkModelOps } from './op-check.ts';
import { ShardReader } from './shard-reader.ts';
import { profiledIfAsked } from './step-profile.ts';
import { copiesOnCreate, valuesView } from './tensor-values.ts';
import { wasmHeapFailure, type ShardNow } from './wasm-heap-failure.ts';
import { BatchNormExchange, syncedBatchNorm } from './batch-norm-exchange.ts';

// A simulated GPU computes on its own core when the coordinator gave it one (MGPU_CPUS).
const pinned = pinFromEnvironment();
if (pinned) process.stderr.write(`${pinned}\n`);

const SLAB_FD = 3;
const CONTROL_FD = 4;

const slab = new Slab(SLAB_FD);
const kernels = floatKernels();
const socket = new net.Socket({ fd: CONTROL_FD, readable: true, writable: true });
// No orphan may hold a GPU: when the coordinator goes away, so does this process.
for (const event of ['close', 'error']) socket.on(event, () => process.exit(0));
// Ctrl-C (and a terminal's hang-up) reaches the whole process group: the coordinator decides when
// workers stop (it finishes the step and checkpoints first); a worker whose coordinator is gone exits on its own.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => {});
const channel = new Channel<ToWorker, ToCoordinator>(socket, (m) => {
  queue = queue.then(() => handle(m));
});
let queue: Promise<void> = Promise.resolve();

// ---- state, set by init and attach ---------------------------------------------------------
let rank = -1;
let phase = 'init';
let init: InitMessage;
let tf: TF;
let model: LayersModel;
let losses: OutputLoss[]; // one per model output, in its order
let customLosses = new Map<string, CustomLossModule>(); // custom loss modules, by config key path (loss, loss.<output>), loaded at init
let customMetrics: CustomMetric[] = []; // config metrics: { module }, loaded at init
let metricsChecked = false; // the custom losses and metrics ran once on a batch of zeros (at the first attach)
let ordered: LayerVariable[]; // trainable first, then non-trainable: the flat layout's order
let trainVars: Variable[];
let flat: FlatLayout;
let slabLayout: SlabLayout;
let reader: ShardReader;
let weightsVersion = -1; // of the trainable weights loaded into the model
let stateVersion = -1; // of the non-trainable ones; -1 also when a step changed them locally
let stateIds: unknown[] = []; // the non-trainables' tensor ids after loading: a step that changes one replaces it
let weightsScratch: Float32Array;
let gradScratch: Float32Array;
let stateScratch: Float32Array;
let viewsOnHeap = false; // wasm: gradients are read as views of its heap, one variable at a time
let shardNow: ShardNow | null = null; // the step's rows, for a heap that runs out
let batchNorms: BatchNormExchange | null = null; // training.syncBatchNorm: statistics summed with the other workers

async function handle(m: ToWorker): Promise<void> {
  try {
    switch (m.type) {
      case 'init':
        await onInit(m);
        return;
      case 'attach':
        await onAttach(m);
        return;
      case 'step':
        await profiledIfAsked(tf, rank, m.step, () => onStep(m));
        return;
      case 'eval':
        await onEval(m);
        return;
      case 'predict':
        await onPredict(m);
        return;
      case 'shutdown':
        socket.end(() => process.exit(0));
        return;
    }
  } catch (err) {
    fail(err);
  }
}

// ---- a) init: backend, model, layout -------------------------------------------------------
async function onInit(m: InitMessage): Promise<void> {
  const t0 = performance.now();
  init = m;
  rank = m.rank;
  const backend = await loadBackend(m.backend, { replaceWasmKernels: m.replaceWasmKernels, allowSoftwareAdapter: m.allowSoftwareAdapter });
  tf = backend.tf;
  viewsOnHeap = tf.getBackend() === 'wasm';
  const builtIn = knownLayerClasses(tf); // before any user module registers its own
  model = await loadModel(tf, m.model, { rank: m.rank, seed: m.seed });
  // A kernel the backend lacks is named now, with the layer that needs it, not mid-run.
  checkModelOps(tf, model, backend.name);
  batchNorms = m.syncBatchNorm ? syncedBatchNorm(tf, backend.name) : null;
  customLosses = await loadCustomLosses(m.loss, model.outputNames);
  customMetrics = await loadCustomMetrics(m.metrics?.custom ?? []);
  const layout = { ...describe(model), customLayers: customLayerClasses(model, builtIn) };
  ordered = [...model.trainableWeights, ...model.nonTrainableWeights];
  trainVars = model.trainableWeights.map((w) => (w as unknown as { val: Variable }).val);
  flat = flatten(layout.variables);
  channel.send({ type: 'ready', rank, backend: backend.name, adapter: backend.adapter, pid: process.pid, layout, ms: performance.now() - t0 });
}

// ---- c) attach: the slab is sized; rank 0 publishes the initial weights --------------------
async function onAttach(m: AttachMessage): Promise<void> {
  phase = 'attach';
  slabLayout = m.slab;
  slab.checkHeader(slabLayout);
  slab.attach(slabLayout);
  // Mapped: gradients go straight into this rank's region and weights come straight from the
  // shared pages; otherwise through local buffers and positional I/O.
  weightsScratch = slab.floats(slabLayout.weights, flat.total) ?? new Float32Array(flat.total);
  gradScratch = slab.floats(slabLayout.grads[rank]!, flat.trainable) ?? new Float32Array(flat.trainable);
  stateScratch = new Float32Array(flat.total - flat.trainable);
  reader = new ShardReader(tf, slab, m.rows, slabLayout.inputBytes);
  // Resolved here, not at init: the coordinator has checked the config's losses against the
  // model's outputs by now, and names what does not fit better than a worker could.
  losses = outputLosses(tf, model.outputNames, init.loss, init.lossWeights, customLosses);
  if (!metricsChecked) {
    await checkCustomLosses(tf, model, m.rows, losses);
    await checkCustomMetrics(tf, model, m.rows, customMetrics);
    metricsChecked = true;
  }
  if (m.writeInitialWeights) {
    // data(), never dataSync(): webgpu in Node cannot read back synchronously.
    for (const [i, v] of ordered.entries()) weightsScratch.set(await v.read().data(), flat.offsets[i]);
    if (slab.mode === 'positional') slab.write(slabLayout.weights, weightsScratch);
  }
  channel.send({ type: 'attached', rank });
}

/** Loads the weights that changed since the last load: trainables and non-trainables apart. */
function refreshWeights(m: { weightsVersion: number; stateVersion: number }): void {
  const trainable = m.weightsVersion !== weightsVersion;
  const state = m.stateVersion !== stateVersion && trainVars.length < ordered.length;
  if (!trainable && !state) return;
  if (slab.mode === 'positional') slab.read(slabLayout.weights, weightsScratch);
  // The scratch is shared and reused: a backend that may keep the array it is given gets a copy.
  const copies = !copiesOnCreate(tf);
  tf.tidy(() => {
    ordered.forEach((v, i) => {
      if (i < trainVars.length ? !trainable : !state) return;
      const values = weightsScratch.subarray(flat.offsets[i], flat.offsets[i]! + flat.sizes[i]!);
      v.write(tf.tensor(copies ? values.slice() : values, v.shape as number[], 'float32'));
    });
  });
  weightsVersion = m.weightsVersion;
  stateVersion = m.stateVersion;
  stateIds = nonTrainableIds();
}

function nonTrainableIds(): unknown[] {
  return ordered.slice(trainVars.length).map((v) => (v as unknown as { val: { dataId: unknown } }).val.dataId);
}

// ---- e) step: forward + backward on this rank's shard, gradients into the slab -------------
async function onStep(m: StepMessage): Promise<void> {
  phase = `step ${m.step + 1}`; // said 1-based, as the coordinator says it
  shardNow = { samples: m.n, micro: m.micro };
  const t0 = performance.now();
  refreshWeights(m);
  const tRefreshed = performance.now();
  const { inputs, targets, weights: w } = reader.read(slabLayout.input[rank]![m.slot]!, m.n);
  let lossTotal = 0;
  let writeMs = 0;
  let at = 0;
  // Off wasm, gradients are summed on the device and read back once, with the losses, as one
  // flat vector: a readback is a round trip to a GPU, whatever its size.
  let onDevice: { grads: Tensor[]; losses: Tensor[] } | null = null;
  // Accumulation: the shard runs as `micro` micro-batches; each one's loss is divided by the
  // global B, so the summed gradients equal those of the whole shard at once.
  for (const [k, size] of shardSizes(m.n, m.micro).entries()) {
    if (size === 0) continue;
    const slice = (t: Tensor) => (m.micro === 1 ? t : tf.slice(t, at, size));
    const xs = inputs.map(slice);
    const ys = targets.map(slice);
    const ws = w === null ? null : slice(w);
    at += size;
    const step = () => microStep(xs, ys, ws, size, m.batch, stepSeed(init.seed, m.step, rank, k));
    const { lossSum, grads } = batchNorms ? batchNorms.during({ step: m.step, batch: m.batch, micro: m.micro, k }, step) : step();
    if (viewsOnHeap) {
      for (const [i, v] of trainVars.entries()) {
        const g = await valuesView(tf, grads[v.name]!); // a view of the heap: used before any allocation
        const tOut = performance.now();
        const into = gradScratch.subarray(flat.offsets[i], flat.offsets[i]! + flat.sizes[i]!);
        if (k === 0) into.set(g);
        else kernels.add(into, g);
        writeMs += performance.now() - tOut;
      }
      lossTotal += (await lossSum.data())[0]!;
      tf.dispose([lossSum, ...Object.values(grads)]);
    } else {
      const mine = trainVars.map((v) => grads[v.name]!);
      if (onDevice === null) {
        onDevice = { grads: mine, losses: [lossSum] };
      } else {
        const prev: Tensor[] = onDevice.grads;
        onDevice.grads = prev.map((g, i) => tf.add(g, mine[i]!));
        onDevice.losses.push(lossSum);
        tf.dispose([...prev, ...mine]);
      }
    }
    if (m.micro !== 1) tf.dispose([...xs, ...ys, ...(ws ? [ws] : [])]);
  }
  tf.dispose([...inputs, ...targets, ...(w ? [w] : [])]);
  if (onDevice) {
    const tOut = performance.now();
    lossTotal = await readFlat(onDevice.grads, onDevice.losses);
    writeMs += performance.now() - tOut;
  }
  const tWrite = performance.now();
  const finite = Number.isFinite(lossTotal) && kernels.allFinite(gradScratch);
  if (slab.mode === 'positional') slab.write(slabLayout.grads[rank]!, gradScratch);
  // Training may update non-trainables (BatchNorm's moving statistics replace their tensors);
  // frozen ones are left alone, and then nothing is written or reloaded.
  const stateChanged = nonTrainableIds().some((id, i) => id !== stateIds[i]);
  if (stateChanged) {
    for (let i = trainVars.length; i < ordered.length; i++) {
      stateScratch.set(await ordered[i]!.read().data(), flat.offsets[i]! - flat.trainable);
    }
    slab.write(slabLayout.state[rank]!, stateScratch);
    stateVersion = -1; // they now differ from the slab's: reload them with the next weights
  }
  const tEnd = performance.now();
  writeMs += tEnd - tWrite;
  channel.send({ type: 'grads', rank, step: m.step, lossSum: lossTotal, n: m.n, finite, stateChanged, ms: tEnd - t0, refreshMs: tRefreshed - t0, writeMs });
}

/**
 * One readback of the gradients (in the flat layout's order) and the micro-batches' loss sums;
 * the gradients go into this rank's region, the loss sums are added here in order. Disposes them.
 */
async function readFlat(grads: Tensor[], losses: Tensor[]): Promise<number> {
  const all = tf.tidy(() => tf.concat([...grads.map((g) => tf.reshape(g, [-1])), ...losses.map((l) => tf.reshape(l, [1]))]));
  tf.dispose([...grads, ...losses]);
  const values = (await all.data()) as Float32Array;
  all.dispose();
  const n = values.length - losses.length;
  gradScratch.set(values.subarray(0, n));
  let total = 0;
  for (let k = n; k < values.length; k++) total += values[k]!;
  return total;
}

/**
 * Gradients of (Σ per-sample loss over these rows, each times its weight w_i when weighted) / B,
 * plus the regularisation share n / B (regularisation is never weighted, as in Keras).
 */
function microStep(x: Tensor[], y: Tensor[], w: Tensor | null, n: number, batch: number, seed: number): { lossSum: Tensor; grads: Record<string, Tensor> } {
  let lossSum!: Tensor;
  const scale = 1 / batch;
  // Dropout and other random layers draw from Math.random: seeded per (seed, step, rank, micro).
  const { grads } = withSeededMathRandom(seed, () =>
    tf.variableGrads(() => {
      const preds = apply(x, true);
      const perSample = combined(tf, losses, perOutput(tf, losses, y, preds));
      lossSum = tf.keep(tf.sum(w === null ? perSample : tf.mul(perSample, w)));
      let total = tf.mul(lossSum, scale);
      const regs = model.calculateLosses();
      if (regs.length > 0) total = tf.add(total, tf.mul(tf.addN(regs), n * scale));
      return total as never;
    }, trainVars),
  );
  return { lossSum, grads };
}

// ---- g) eval and predict: sums of loss and metrics, or outputs, over this rank's rows ------
async function onEval(m: EvalMessage): Promise<void> {
  phase = 'eval';
  refreshWeights(m);
  const { inputs: xs, targets: ys, weights: w } = reader.read(slabLayout.input[rank]![m.slot]!, m.n);
  const preds = tf.tidy(() => apply(xs, false));
  const several = losses.length > 1;
  // The total loss Σ_k lw_k · l_k, weighted by the eval set's weights (1s when it has none).
  const total = tf.tidy(() => {
    const l = combined(tf, losses, perOutput(tf, losses, ys, preds));
    return tf.sum(w === null ? l : tf.mul(l, w));
  });
  const lossSum = (await total.data())[0]!;
  total.dispose();
  // Each output's figures, by its own loss; with auc, its rows' scores and labels go into
  // output[rank] after those of the outputs before it (EvaluatedMessage.outputs).
  const each: OutputSums[] = [];
  let at = 0;
  for (const [k, l] of losses.entries()) {
    const { sums, scores } = await outputSums(l, ys[k]!, preds[k]!, w, m.topK, several ? ` on output '${l.output}'` : '');
    if (scores) {
      if (at + scores.byteLength > slabLayout.outputBytes) {
        throw new MgpuError('E_INTERNAL', `scores of ${m.n} rows need ${at + scores.byteLength} bytes; the output buffer holds ${slabLayout.outputBytes}`);
      }
      slab.write(slabLayout.output[rank]! + at, scores);
      at += scores.byteLength;
    }
    each.push(sums);
  }
  tf.dispose([...xs, ...ys, ...preds, ...(w ? [w] : [])]);
  // One output: its figures are the message's own; several: each output's in `outputs`.
  const { lossSum: _own, ...first } = each[0]!;
  const none = { correct: 0, absErrorSum: 0, topKCorrect: 0, sqErrorSum: 0, counts: null, scored: 0, custom: null };
  channel.send({ type: 'evaluated', rank, id: m.id, n: m.n, lossSum, ...(several ? none : first), outputs: several ? each : null });
}

/**
 * One output's eval sums over this rank's rows: its loss (weighted by the eval set's weights, its
 * loss weight not applied), right answers, absolute error and top-k hits, as its loss measures
 * them; with the config's metrics, its squared error, per-class counts, custom sums, and (auc)
 * its rows' scores and labels, returned for the caller to place in output[rank].
 */
async function outputSums(
  l: OutputLoss,
  y: Tensor,
  pred: Tensor,
  w: Tensor | null,
  k: number,
  where: string,
): Promise<{ sums: OutputSums; scores: Float32Array | null }> {
  const fns = l.fns;
  const shipped = tf.tidy(() => {
    const classes = pred.shape[pred.shape.length - 1]!;
    const perRow = fns.perSample(y, pred);
    return tf.stack([
      tf.sum(w === null ? perRow : tf.mul(perRow, w)),
      fns.correct ? tf.sum(fns.correct(y, pred)) : tf.scalar(0),
      tf.sum(fns.absError(y, pred)),
      fns.topK && classes > k ? tf.sum(fns.topK(y, pred, k)) : tf.scalar(0),
    ]);
  });
  const [lossSum, correct, absErrorSum, topKCorrect] = Array.from(await shipped.data());
  shipped.dispose();
  const sums: OutputSums = {
    lossSum: lossSum!,
    correct: correct!,
    absErrorSum: absErrorSum!,
    topKCorrect: topKCorrect!,
    sqErrorSum: 0,
    counts: null,
    scored: 0,
    custom: null,
  };
  const spec = init.metrics;
  if (!spec) return { sums, scores: null };
  // The config's metrics: sums, and (auc) each row's scores and label.
  const t = metricTensors(tf, l.loss, fns, spec, y, pred);
  const values = (await t.flat.data()) as Float32Array;
  t.flat.dispose();
  const got = unpack(values, spec, t);
  sums.sqErrorSum = got.sqErrorSum;
  sums.counts = got.counts;
  sums.scored = got.scores ? t.rows : 0;
  if (customMetrics.length) {
    const custom: Record<string, number>[] = [];
    for (const c of customMetrics) custom.push(await customSums(tf, c, y, pred, where));
    sums.custom = custom;
  }
  return { sums, scores: got.scores };
}

async function onPredict(m: PredictMessage): Promise<void> {
  phase = 'predict';
  refreshWeights(m);
  // A predict run stages the model's inputs alone: no targets, no weights.
  const { inputs, targets, weights: w } = reader.read(slabLayout.input[rank]![m.slot]!, m.n);
  // Every output's n rows, one output after another (model order), read back at once: one
  // output is written as it is, several as one flat vector of them in order.
  const pred = tf.tidy(() => {
    const outs = apply(inputs, false).map((p) => tf.cast(p, 'float32'));
    return outs.length === 1 ? outs[0]! : tf.concat(outs.map((p) => tf.reshape(p, [-1])));
  });
  const values = (await pred.data()) as Float32Array;
  if (values.byteLength > slabLayout.outputBytes) {
    throw new MgpuError('E_INTERNAL', `predictions of ${m.n} rows need ${values.byteLength} bytes; the output buffer holds ${slabLayout.outputBytes}`);
  }
  slab.write(slabLayout.output[rank]!, values);
  tf.dispose([...inputs, ...targets, ...(w ? [w] : []), pred]);
  channel.send({ type: 'predicted', rank, id: m.id, n: m.n });
}

/** The model on its inputs (one tensor, or a list in the model's input order): its outputs, in order. */
function apply(inputs: Tensor[], training: boolean): Tensor[] {
  const out = model.apply(inputs.length === 1 ? inputs[0]! : inputs, { training }) as Tensor | Tensor[];
  return Array.isArray(out) ? out : [out];
}

function stepSeed(seed: number, step: number, r: number, micro: number): number {
  return streamState(0x53544550 /* 'STEP' */, seed, step, r, micro);
}

function fail(err: unknown): void {
  const e = err as (Error & { code?: string; hint?: string }) | null | undefined;
  const heap = viewsOnHeap ? wasmHeapFailure(tf, err, phase.startsWith('step') ? shardNow : null) : null;
  channel.send({
    type: 'error',
    rank,
    phase,
    message: heap?.message ?? e?.message ?? String(err),
    code: err instanceof MgpuError ? err.code : undefined,
    hint: heap?.hint ?? e?.hint,
    stack: e?.stack,
  });
  socket.end(() => process.exit(1));
  setTimeout(() => process.exit(1), 1000).unref();
}

process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
