// The benchmark's baseline, run in a process of its own: plain one-process tfjs as a user writes
// it (the model built by the config's own builder, tfjs's own optimizer, one optimizer.minimize
// per step, the loss read back each step), on the backend the workers start, with the kernels
// they register on wasm (src/worker/backend.ts), at one worker's batch, on synthetic rows of the
// model's input shape. Takes a PlainRequest as JSON in argv[2]; prints JSON lines on stdout:
// {progress, total, rate} after each step, then {result} or {refused} (why it cannot be timed).
import { performance } from 'node:perf_hooks';
import type { LayersModel, Optimizer, Tensor } from '@tensorflow/tfjs';
import type { LossName, OptimizerConfig } from '../config/types.ts';
import { LOSSES } from '../shared/losses-table.ts';
import { mulberry32 } from '../shared/rng.ts';
import { loadBackend, type TF } from '../worker/backend.ts';
import { loadModel } from '../worker/model-loader.ts';
import { mean, rateFigures } from './stats.ts';
import { modelFlops } from './model-flops.ts';
import { plainFailure } from './plain-failure.ts';
import type { PlainFigures, PlainRequest } from './plain-baseline.ts';

const say = (line: object) => process.stdout.write(JSON.stringify(line) + '\n');

/** The wasm heap's size, once the backend is wasm: a failure is said as memory when it ran out (plain-failure.ts). */
const wasmHeap: { bytes: (() => number) | null } = { bytes: null };

/** tfjs's own optimizer for the config's; adamw has none in tfjs (Adam is used, and said). */
function tfOptimizer(tf: TF, o: OptimizerConfig): { opt: Optimizer; note: string | null } {
  const table: Record<OptimizerConfig['name'], () => Optimizer> = {
    sgd: () => tf.train.sgd(o.learningRate),
    momentum: () => tf.train.momentum(o.learningRate, o.momentum, o.nesterov),
    adam: () => tf.train.adam(o.learningRate, o.beta1, o.beta2, o.epsilon),
    adamw: () => tf.train.adam(o.learningRate, o.beta1, o.beta2, o.epsilon),
    rmsprop: () => tf.train.rmsprop(o.learningRate, o.decay, o.momentum, o.epsilon, o.centered),
    adagrad: () => tf.train.adagrad(o.learningRate, o.initialAccumulatorValue),
  };
  return { opt: table[o.name](), note: o.name === 'adamw' ? 'tfjs has no AdamW: the baseline steps with Adam' : null };
}

/** The mean loss over a batch, with tfjs's own loss functions. */
function lossFn(tf: TF, name: LossName): (y: Tensor, p: Tensor) => Tensor {
  const table: Record<LossName, (y: Tensor, p: Tensor) => Tensor> = {
    categoricalCrossentropy: (y, p) => tf.mean(tf.metrics.categoricalCrossentropy(y, p)),
    // tfjs exports no sparse cross-entropy: the indices one-hot, as a plain loop writes it.
    sparseCategoricalCrossentropy: (y, p) => tf.mean(tf.metrics.categoricalCrossentropy(tf.oneHot(tf.cast(y, 'int32'), p.shape[p.rank - 1]!), p)),
    binaryCrossentropy: (y, p) => tf.mean(tf.metrics.binaryCrossentropy(y, p)),
    meanSquaredError: (y, p) => tf.losses.meanSquaredError(y, p),
  };
  return table[name];
}

/** Host rows for two batches (so that consecutive steps differ), and their labels as the loss takes them. */
function syntheticBatches(tf: TF, model: LayersModel, loss: LossName, batch: number) {
  const rng = mulberry32(0x504c4149); // 'PLAI'
  const inShape = model.inputs[0]!.shape.slice(1) as number[];
  const outShape = model.outputs[0]!.shape.slice(1) as number[];
  const size = (s: number[]) => s.reduce((a, b) => a * b, 1);
  const classes = outShape[outShape.length - 1] ?? 1;
  const x = Float32Array.from({ length: 2 * batch * size(inShape) }, () => rng.float());
  const labels = LOSSES[loss].labels;
  const make = (k: number): { x: Tensor; y: Tensor } => {
    const xs = tf.tensor(x.subarray(k * batch * size(inShape), (k + 1) * batch * size(inShape)), [batch, ...inShape]);
    if (labels === 'index')
      return {
        x: xs,
        y: tf.tensor(
          Int32Array.from({ length: batch }, () => rng.below(classes)),
          [batch],
          'int32',
        ),
      };
    if (labels === 'onehot')
      return {
        x: xs,
        y: tf.oneHot(
          Int32Array.from({ length: batch }, () => rng.below(classes)),
          classes,
        ),
      };
    const y = Float32Array.from({ length: batch * size(outShape) }, () => (labels === 'binary' ? rng.below(2) : rng.float()));
    return { x: xs, y: tf.tensor(y, [batch, ...outShape]) };
  };
  return { inShape, make };
}

/** Why this model cannot be timed here, or null. */
function refusal(model: LayersModel, loss: PlainRequest['loss']): string | null {
  if (model.inputs.length !== 1 || model.outputs.length !== 1)
    return `the model has ${model.inputs.length} inputs and ${model.outputs.length} outputs: the baseline times a model of one of each`;
  if (typeof loss !== 'string') return 'the loss is a custom module or one per output: the baseline times a built-in loss';
  if (model.inputs[0]!.shape.slice(1).some((d) => d === null))
    return `the model's input shape [${model.inputs[0]!.shape.join(', ')}] has sizes left open: the baseline needs them all`;
  return null;
}

async function main(req: PlainRequest): Promise<void> {
  const loaded = await loadBackend(req.backend, { replaceWasmKernels: req.replaceWasmKernels, allowSoftwareAdapter: req.allowSoftwareAdapter });
  const tf = loaded.tf;
  if (tf.getBackend() === 'wasm') wasmHeap.bytes = () => (tf.backend() as unknown as { wasm: { HEAPU8: Uint8Array } }).wasm.HEAPU8.length;
  const model = await loadModel(tf, req.model, { rank: 0, seed: req.seed });
  say({ flops: modelFlops(model) }); // said first: the FLOPs serve the workers' rows even where this baseline is refused
  const refused = refusal(model, req.loss);
  if (refused !== null || typeof req.loss !== 'string') {
    say({ refused: refused ?? 'no built-in loss' });
    return;
  }
  const { opt, note } = tfOptimizer(tf, req.optimizer);
  const loss = lossFn(tf, req.loss);
  const { inShape, make } = syntheticBatches(tf, model, req.loss, req.batch);
  const times: number[] = [];
  const rates: number[] = [];
  for (let k = 0; k < req.warmup + req.steps; k++) {
    const t0 = performance.now();
    const value = tf.tidy(() => {
      const { x, y } = make(k % 2);
      return opt.minimize(() => loss(y, model.apply(x, { training: true }) as Tensor) as never, true)!;
    });
    await value.data();
    value.dispose();
    const ms = performance.now() - t0;
    if (k >= req.warmup) {
      times.push(ms);
      rates.push((req.batch * 1000) / ms);
    }
    say({ progress: k + 1, total: req.warmup + req.steps, rate: rates.length ? mean(rates) : null });
  }
  const result: PlainFigures = {
    backend: loaded.name,
    kernels: kernelsNote(tf.getBackend(), req.replaceWasmKernels),
    batch: req.batch,
    inputShape: inShape,
    measuredSteps: times.length,
    imagesPerSec: mean(rates),
    rate: rateFigures(rates),
    totalImagesPerSec: (req.batch * times.length * 1000) / times.reduce((a, b) => a + b, 0),
    stepMs: times,
    note,
  };
  say({ result });
}

/** Which kernels the baseline ran: on wasm, those mgpu-train's workers register. */
function kernelsNote(backend: string, replaced: boolean): string {
  if (backend !== 'wasm') return 'as shipped';
  return replaced
    ? "mgpu-train's wasm kernels, as its workers register them, and the fused kernels every BatchNormalization and ReLU6 (activation or capped ReLU layer) uses in both"
    : "wasm's own, and the gradient kernels mgpu-train adds";
}

const req = JSON.parse(process.argv[2] ?? '{}') as PlainRequest;
try {
  await main(req);
  process.exit(0); // Dawn, when loaded, would hold the process open
} catch (err) {
  const e = err instanceof Error ? err : new Error(String(err));
  say({ failed: plainFailure(e, wasmHeap.bytes?.() ?? null, req.batch) });
  process.exit(1);
}
