// Fixtures for the integration tests that check the central claim: training on N simulated GPUs
// gives the model that plain single-process tfjs training gives with the same global batches.
//
//   tempDir()            a fresh directory under os.tmpdir()
//   writeModelModule()   a tiny model module (.mjs, default export (tf, ctx) => LayersModel)
//   writeDataset()       seeded random features + labels as .npy files
//   buildConfig()        a Config through validateConfig (defaults apply), simulated cpu workers
//   referenceTrain()     plain tfjs in this process: tf.train.* optimizer .minimize(mean loss)
//   towerReferenceTrain() the same with the global batch split into shards as the workers do
//                        (BatchNorm moving statistics averaged by shard size)
//   evaluateReference()  single-process evaluation over a whole dataset
//
// The reference runs on tfjs's pure-JS cpu backend, the backend the workers use here, so the
// only differences left are the order of float32 sums.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TestContext } from 'node:test';
import type { LayersModel, LayerVariable, NamedTensorMap, Optimizer, Scalar, Tensor, Tensor1D, Variable } from '@tensorflow/tfjs';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import type { Progress } from '../../src/coordinator/console/progress.ts';
import type { Config, DataSource, LossName, LossSpec } from '../../src/config/types.ts';
import { validateConfig } from '../../src/config/validate.ts';
import { readNpy, writeNpy, type NdArray } from '../../src/shared/npy.ts';
import { mulberry32, withSeededMathRandom, withSeededMathRandomAsync } from '../../src/shared/rng.ts';
import { assertClose } from './close.ts';
import { tempDir } from './temp-dir.ts';

export { tempDir };
import { buildNet } from '../../src/nets/nets-table.ts';

export type TF = typeof import('@tensorflow/tfjs');

// ---- files ---------------------------------------------------------------------------------

export const FEATURES = 6;
export const CLASSES = 3;
export const OUTPUTS = 2; // of the linear (mean squared error) model

export type ModelKind = 'mlp' | 'l2' | 'batchnorm' | 'binary' | 'linear' | 'frozen';

const MODELS: Record<ModelKind, string> = {
  // 6-8-3 softmax
  mlp: `
    tf.layers.dense({ inputShape: [${FEATURES}], units: 8, activation: 'tanh' }),
    tf.layers.dense({ units: ${CLASSES}, activation: 'softmax' }),`,
  // the same with an L2 penalty on both kernels (a large one, so it shows in the weights)
  l2: `
    tf.layers.dense({ inputShape: [${FEATURES}], units: 8, activation: 'tanh', kernelRegularizer: tf.regularizers.l2({ l2: 0.05 }) }),
    tf.layers.dense({ units: ${CLASSES}, activation: 'softmax', kernelRegularizer: tf.regularizers.l2({ l2: 0.05 }) }),`,
  // dense -> BatchNorm -> relu -> dense softmax; momentum 0.8 so the moving statistics move
  batchnorm: `
    tf.layers.dense({ inputShape: [${FEATURES}], units: 8 }),
    tf.layers.batchNormalization({ momentum: 0.8 }),
    tf.layers.activation({ activation: 'relu' }),
    tf.layers.dense({ units: ${CLASSES}, activation: 'softmax' }),`,
  // a single sigmoid output for binary cross-entropy
  binary: `
    tf.layers.dense({ inputShape: [${FEATURES}], units: 8, activation: 'tanh' }),
    tf.layers.dense({ units: 1, activation: 'sigmoid' }),`,
  // a frozen base (trainable: false, as when fine-tuning) under a trainable softmax head
  frozen: `
    tf.layers.dense({ inputShape: [${FEATURES}], units: 8, activation: 'tanh', trainable: false }),
    tf.layers.dense({ units: ${CLASSES}, activation: 'softmax' }),`,
  // linear outputs for mean squared error
  linear: `
    tf.layers.dense({ inputShape: [${FEATURES}], units: 8, activation: 'tanh' }),
    tf.layers.dense({ units: ${OUTPUTS} }),`,
};

/** Writes `<dir>/<kind>.mjs`, a model module whose default export builds the model; returns its path. */
export function writeModelModule(dir: string, kind: ModelKind): string {
  const file = path.join(dir, `${kind}.mjs`);
  fs.writeFileSync(
    file,
    `// ${kind}: written by test/helpers/train-fixture.ts\nexport default function build(tf, ctx) {\n  return tf.sequential({ layers: [${MODELS[kind]}\n  ] });\n}\n`,
  );
  return file;
}

export type LabelKind = 'onehot' | 'index' | 'binary' | 'regression';

/**
 * Writes `<dir>/<name>-x.npy` (float32 [count, FEATURES], uniform in [-1, 1)) and
 * `<dir>/<name>-y.npy`: onehot float32 [count, CLASSES], index int32 [count], binary 0/1
 * float32 [count, 1], regression float32 [count, OUTPUTS]. Labels come from a fixed random
 * linear teacher (the same for every split, so an eval split is learnable from a train split)
 * plus noise; `seed` draws the features and the noise. Returns the npy data source.
 */
export function writeDataset(dir: string, name: string, count: number, labels: LabelKind, seed: number): { type: 'npy'; features: string; labels: string } {
  const outs = labels === 'regression' ? OUTPUTS : labels === 'binary' ? 1 : CLASSES;
  const teacherRng = mulberry32(0x7eac4e5);
  const teacher = Array.from({ length: outs * FEATURES }, () => teacherRng.float() * 2 - 1);
  const rng = mulberry32(seed);
  const u = () => rng.float() * 2 - 1;
  const x = new Float32Array(count * FEATURES).map(u);
  const score = (i: number, o: number) => {
    let s = 0.3 * u();
    for (let f = 0; f < FEATURES; f++) s += teacher[o * FEATURES + f]! * x[i * FEATURES + f]!;
    return s;
  };
  let y: NdArray;
  if (labels === 'regression') {
    const d = new Float32Array(count * OUTPUTS);
    for (let i = 0; i < count; i++) for (let o = 0; o < OUTPUTS; o++) d[i * OUTPUTS + o] = score(i, o);
    y = { dtype: 'float32', shape: [count, OUTPUTS], data: d };
  } else if (labels === 'binary') {
    const d = new Float32Array(count);
    for (let i = 0; i < count; i++) d[i] = score(i, 0) > 0 ? 1 : 0;
    y = { dtype: 'float32', shape: [count, 1], data: d };
  } else {
    const cls = new Int32Array(count);
    for (let i = 0; i < count; i++) {
      let best = 0;
      let bestScore = -Infinity;
      for (let c = 0; c < CLASSES; c++) {
        const s = score(i, c);
        if (s > bestScore) [best, bestScore] = [c, s];
      }
      cls[i] = best;
    }
    if (labels === 'index') {
      y = { dtype: 'int32', shape: [count], data: cls };
    } else {
      const d = new Float32Array(count * CLASSES);
      cls.forEach((c, i) => (d[i * CLASSES + c] = 1));
      y = { dtype: 'float32', shape: [count, CLASSES], data: d };
    }
  }
  const features = path.join(dir, `${name}-x.npy`);
  const labelsFile = path.join(dir, `${name}-y.npy`);
  writeNpy(features, { dtype: 'float32', shape: [count, FEATURES], data: x });
  writeNpy(labelsFile, y);
  return { type: 'npy', features, labels: labelsFile };
}

// ---- config and progress -------------------------------------------------------------------

/**
 * A validated Config from a raw config object (so every default applies), run on `simulate`
 * simulated GPUs with the given backend (default: the pure-JS cpu backend), logging rarely,
 * with its run directory inside `dir`. Keys already set in `raw` win.
 */
export function buildConfig(dir: string, raw: Record<string, unknown>, simulate: number, backend: 'cpu' | 'wasm' = 'cpu'): Config {
  const name = (raw.name as string | undefined) ?? 'run';
  const full = {
    ...raw,
    name,
    devices: { simulate, backend, ...(raw.devices as object | undefined) },
    log: { every: 1_000_000, ...(raw.log as object | undefined) },
    runDir: (raw.runDir as string | undefined) ?? path.join(dir, 'runs', `${name}-n${simulate}-${backend}`),
  };
  return validateConfig(full, { configPath: null, cwd: dir });
}

export const silent: Progress = { step() {}, line() {}, done() {} };

// ---- the reference: plain tfjs in this process ---------------------------------------------

let tfPromise: Promise<TF> | null = null;

/** @tensorflow/tfjs on its cpu backend, loaded once per test process. */
export function loadTf(): Promise<TF> {
  tfPromise ??= (async () => {
    const tf = (await import('@tensorflow/tfjs')) as TF;
    if (!(await tf.setBackend('cpu'))) throw new Error("tf.setBackend('cpu') failed");
    await tf.ready();
    return tf;
  })();
  return tfPromise;
}

/**
 * Builds the model of `cfg` the way a worker does: its builder, with Math.random seeded by the
 * config seed. A network by name (model.net, its classes given) is built by the table's builder:
 * the builder is the model's definition, which both sides share as they share a model module;
 * what the parity tests check is the distributed training of it.
 */
export async function buildReferenceModel(tf: TF, cfg: Config): Promise<LayersModel> {
  const net = cfg.model.net;
  if (net) {
    if (net.classes === null) throw new Error('the reference builds a network whose model.classes is given');
    const { name, ...options } = { ...net, classes: net.classes };
    return withSeededMathRandom(cfg.training.seed, () => buildNet(tf, name, options));
  }
  if (!cfg.model.module) throw new Error('the reference builds models from model.module or model.net only');
  const mod = (await import(pathToFileURL(cfg.model.module).href)) as { default: (tf: TF, ctx: { rank: number; seed: number }) => LayersModel };
  return withSeededMathRandomAsync(cfg.training.seed, async () => mod.default(tf, { rank: 0, seed: cfg.training.seed }));
}

/** Per-sample loss [n], from tfjs's own metrics (the labels as read from the .npy file). */
export function perSampleLoss(tf: TF, spec: LossSpec, y: Tensor, pred: Tensor): Tensor1D {
  if (typeof spec !== 'string') throw new Error('perSampleLoss: one loss name, not one per output');
  const loss: LossName = spec;
  switch (loss) {
    case 'categoricalCrossentropy':
      return tf.metrics.categoricalCrossentropy(y, pred) as Tensor1D;
    case 'sparseCategoricalCrossentropy':
      return tf.metrics.categoricalCrossentropy(tf.oneHot(tf.cast<Tensor1D>(tf.reshape(y, [-1]), 'int32'), pred.shape[1]!), pred) as Tensor1D;
    case 'binaryCrossentropy':
      return tf.metrics.binaryCrossentropy(y, pred) as Tensor1D;
    case 'meanSquaredError':
      return tf.metrics.meanSquaredError(y, pred) as Tensor1D;
  }
}

function makeOptimizer(tf: TF, cfg: Config): Optimizer {
  const o = cfg.optimizer;
  if (cfg.schedule.name !== 'constant' || cfg.schedule.warmupSteps !== 0) throw new Error('the reference supports a constant learning rate only');
  switch (o.name) {
    case 'sgd':
      return tf.train.sgd(o.learningRate);
    case 'momentum':
      return tf.train.momentum(o.learningRate, o.momentum, o.nesterov);
    case 'adam':
      return tf.train.adam(o.learningRate, o.beta1, o.beta2, o.epsilon);
    default:
      throw new Error(`the reference has no ${o.name} optimizer`);
  }
}

const varOf = (w: LayerVariable): Variable => (w as unknown as { val: Variable }).val;

/** The model's weights as one flat vector in the coordinator's order: trainable, then non-trainable. */
export function flatWeights(model: LayersModel): Float32Array {
  return concatWeights([...model.trainableWeights, ...model.nonTrainableWeights]);
}

/** The model's weights in the order of its saved weights.bin (model.weights). */
export function savedOrder(model: LayersModel): Float32Array {
  return concatWeights(model.weights);
}

function concatWeights(vs: readonly LayerVariable[]): Float32Array {
  const parts = vs.map((v) => v.read().dataSync() as Float32Array);
  const out = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Writes a flat vector (the coordinator's order) into the model's variables. */
export function setFlatWeights(tf: TF, model: LayersModel, flat: Float32Array): void {
  const vs = [...model.trainableWeights, ...model.nonTrainableWeights];
  let at = 0;
  for (const v of vs) {
    const n = (v.shape as number[]).reduce((a, b) => a * b, 1);
    v.write(tf.tensor(flat.slice(at, at + n), v.shape as number[], 'float32'));
    at += n;
  }
  if (at !== flat.length) throw new Error(`setFlatWeights: the model has ${at} values, the vector ${flat.length}`);
}

export interface LoadedData {
  x: Tensor; // the whole split
  y: Tensor;
  count: number;
}

export function loadData(tf: TF, src: DataSource): LoadedData {
  if (src.type !== 'npy' || typeof src.features !== 'string' || typeof src.labels !== 'string')
    throw new Error('the reference reads npy data of one input and one output only');
  const f = readNpy(src.features);
  const l = readNpy(src.labels);
  const x = tf.tensor(f.data, f.shape, 'float32');
  const y = tf.tensor(l.data, l.shape, l.dtype === 'int32' ? 'int32' : 'float32');
  return { x, y, count: f.shape[0]! };
}

export interface ReferenceResult {
  tf: TF;
  model: LayersModel; // the trained model (the caller may dispose it)
  weights: Float32Array; // flat, the coordinator's order
  steps: number;
}

export interface ReferenceOptions {
  /** After each update: `done` updates applied so far. */
  onStep?(done: number, model: LayersModel): void;
  /** towerReferenceTrain: Math.random's seed for the shard of `rank` at (0-based) `step`, as a worker seeds it for Dropout. */
  randomSeed?(step: number, rank: number): number;
  /** referenceTrain: (0-based) steps whose batch is not trained at all, as onNonFinite: skip leaves them. */
  skipSteps?: ReadonlySet<number>;
  /** referenceTrain: samples taken out of every batch that holds them, as data.onBadSample: skip leaves a bad file. */
  leaveOut?: ReadonlySet<number>;
}

/**
 * Plain single-process training: per step, the tfjs optimizer minimises the mean per-sample
 * loss over the global batch plus the model's regularisation losses, on the batches of the
 * coordinator's BatchPlan (same seed, same order).
 */
export async function referenceTrain(cfg: Config, opts: ReferenceOptions = {}): Promise<ReferenceResult> {
  const tf = await loadTf();
  const model = await buildReferenceModel(tf, cfg);
  const data = loadData(tf, cfg.data.train);
  const optimizer = makeOptimizer(tf, cfg);
  const varList = model.trainableWeights.map(varOf);
  const plan = new BatchPlan(data.count, cfg.training.batchSize, cfg.training.seed, cfg.training.dropLast, cfg.training);
  // Rows are reshaped to the model's input (a conv net fed rows of pixels), as the workers do.
  const inputShape = model.inputs[0]!.shape.slice(1) as number[];
  for (let step = 0; step < plan.totalSteps; step++) {
    if (opts.skipSteps?.has(step)) continue;
    const idx = tf.tensor1d(
      Array.from(plan.batchAt(step).indices).filter((i) => !opts.leaveOut?.has(i)),
      'int32',
    );
    const x = tf.reshape(tf.gather(data.x, idx), [-1, ...inputShape]);
    const y = tf.gather(data.y, idx);
    optimizer.minimize(
      () => {
        const pred = model.apply(x, { training: true }) as Tensor;
        let total = tf.mean<Scalar>(perSampleLoss(tf, cfg.loss, y, pred));
        const regs = model.calculateLosses();
        if (regs.length > 0) total = tf.add<Scalar>(total, tf.addN(regs));
        return total;
      },
      false,
      varList,
    );
    tf.dispose([idx, x, y]);
    opts.onStep?.(step + 1, model);
  }
  optimizer.dispose();
  tf.dispose([data.x, data.y]);
  return { tf, model, weights: flatWeights(model), steps: plan.totalSteps };
}

/** [start, end) of each rank's rows: sizes differ by at most one, the larger ones on the lower ranks (docs/design.md, "One step"). */
export function towerRanges(batch: number, workers: number): Array<[number, number]> {
  const base = Math.floor(batch / workers);
  const extra = batch % workers;
  const out: Array<[number, number]> = [];
  let at = 0;
  for (let r = 0; r < workers; r++) {
    const n = base + (r < extra ? 1 : 0);
    out.push([at, at + n]);
    at += n;
  }
  return out;
}

/**
 * The tower reference (for BatchNorm): per step, the global batch is split over `workers`
 * ranks as the coordinator does; each shard starts from the step's moving statistics and
 * computes grad((Σ per-sample loss over the shard) / B + regs · n_i / B) with the model in
 * training mode (which moves its statistics); the shard gradients are summed in rank order and
 * applied with the tfjs optimizer, and each moving statistic becomes Σ_i (n_i / B) · stats_i.
 * With `randomSeed`, each shard's pass runs with Math.random seeded as that rank's (Dropout).
 */
export async function towerReferenceTrain(cfg: Config, workers: number, opts: ReferenceOptions = {}): Promise<ReferenceResult> {
  const tf = await loadTf();
  const model = await buildReferenceModel(tf, cfg);
  const data = loadData(tf, cfg.data.train);
  const optimizer = makeOptimizer(tf, cfg);
  const varList = model.trainableWeights.map(varOf);
  const states = model.nonTrainableWeights;
  const plan = new BatchPlan(data.count, cfg.training.batchSize, cfg.training.seed, cfg.training.dropLast, cfg.training);
  for (let step = 0; step < plan.totalSteps; step++) {
    const indices = plan.batchAt(step).indices;
    const B = indices.length;
    const atStart = states.map((v) => Float32Array.from(v.read().dataSync() as Float32Array));
    const averaged = atStart.map((s) => new Float32Array(s.length));
    let sum: NamedTensorMap | null = null;
    let first = true;
    for (const [rank, [a, b]] of towerRanges(B, workers).entries()) {
      const n = b - a;
      if (n === 0) continue; // this rank sits the step out
      states.forEach((v, i) => v.write(tf.tensor(atStart[i]!.slice(), v.shape as number[], 'float32')));
      const idx = tf.tensor1d(Array.from(indices.subarray(a, b)), 'int32');
      const x = tf.gather(data.x, idx);
      const y = tf.gather(data.y, idx);
      const shardGrads = () =>
        tf.variableGrads(() => {
          const pred = model.apply(x, { training: true }) as Tensor;
          let total = tf.mul<Scalar>(tf.sum(perSampleLoss(tf, cfg.loss, y, pred)), 1 / B);
          const regs = model.calculateLosses();
          if (regs.length > 0) total = tf.add<Scalar>(total, tf.mul(tf.addN(regs), n / B));
          return total;
        }, varList);
      const { value, grads } = opts.randomSeed ? withSeededMathRandom(opts.randomSeed(step, rank), shardGrads) : shardGrads();
      const w = n / B;
      states.forEach((v, i) => {
        const s = v.read().dataSync() as Float32Array;
        const acc = averaged[i]!;
        for (let j = 0; j < acc.length; j++) acc[j] = first ? s[j]! * w : acc[j]! + s[j]! * w;
      });
      if (sum === null) {
        sum = grads;
      } else {
        const next: NamedTensorMap = {};
        for (const k of Object.keys(sum)) next[k] = tf.add(sum[k]!, grads[k]!);
        tf.dispose([...Object.values(sum), ...Object.values(grads)]);
        sum = next;
      }
      first = false;
      tf.dispose([idx, x, y, value]);
    }
    optimizer.applyGradients(sum!);
    tf.dispose(Object.values(sum!));
    states.forEach((v, i) => v.write(tf.tensor(averaged[i]!, v.shape as number[], 'float32')));
    opts.onStep?.(step + 1, model);
  }
  optimizer.dispose();
  tf.dispose([data.x, data.y]);
  return { tf, model, weights: flatWeights(model), steps: plan.totalSteps };
}

export interface ReferenceEval {
  samples: number;
  loss: number;
  accuracy: number | null;
  mae: number;
}

/** Single-process evaluation of `model` (inference mode) over a whole split, in one batch. */
export function evaluateReference(tf: TF, model: LayersModel, src: DataSource, loss: LossSpec): ReferenceEval {
  const data = loadData(tf, src);
  const classed = loss !== 'meanSquaredError';
  // [loss sum, right answers (an exact count), absolute error sum], each over every sample
  const sums = tf.tidy(() => {
    const pred = model.apply(data.x, { training: false }) as Tensor;
    const yDense = loss === 'sparseCategoricalCrossentropy' ? tf.oneHot(tf.cast<Tensor1D>(tf.reshape(data.y, [-1]), 'int32'), pred.shape[1]!) : data.y;
    const right =
      loss === 'binaryCrossentropy' ? tf.equal(tf.greater(data.y, 0.5), tf.greater(pred, 0.5)) : tf.equal(tf.argMax(yDense, -1), tf.argMax(pred, -1));
    return [tf.sum(perSampleLoss(tf, loss, data.y, pred)), tf.sum(tf.cast(right, 'int32')), tf.sum(tf.metrics.meanAbsoluteError(yDense, pred))];
  });
  const [lossSum, right, absSum] = sums.map((t) => t.dataSync()[0]!);
  tf.dispose(sums);
  // float64 ratios, as the coordinator computes them from its sums
  const out = { loss: lossSum! / data.count, accuracy: classed ? right! / data.count : null, mae: absSum! / data.count };
  tf.dispose([data.x, data.y]);
  return { samples: data.count, ...out };
}

// ---- comparing -----------------------------------------------------------------------------

/** The largest absolute difference and the largest |a - e| / |e| (over |e| > 1e-3). */
export function worstDiff(actual: ArrayLike<number>, expected: ArrayLike<number>): { abs: number; rel: number } {
  let abs = 0;
  let rel = 0;
  for (let i = 0; i < expected.length; i++) {
    const d = Math.abs(actual[i]! - expected[i]!);
    abs = Math.max(abs, d);
    if (Math.abs(expected[i]!) > 1e-3) rel = Math.max(rel, d / Math.abs(expected[i]!));
  }
  return { abs, rel };
}

// Observed: every difference is a few float32 ulps (|diff| <= ~2e-7 on weights of size ~1).
export const RTOL = 1e-5;
export const ATOL = 1e-6;

/**
 * assertClose over every value, after a sanity check that training moved the weights at all
 * (`initial`, when given, must differ from `expected`), reporting the worst difference as a
 * test diagnostic.
 */
export function assertWeightsClose(
  t: TestContext,
  actual: Float32Array,
  expected: Float32Array,
  what: string,
  tol: { rtol?: number; atol?: number; initial?: Float32Array } = {},
): void {
  const rtol = tol.rtol ?? RTOL;
  const atol = tol.atol ?? ATOL;
  const w = worstDiff(actual, expected);
  t.diagnostic(`${what}: ${expected.length} values, worst |diff| ${w.abs.toExponential(2)}, worst rel ${w.rel.toExponential(2)}`);
  if (tol.initial) {
    const moved = worstDiff(expected, tol.initial).abs;
    if (!(moved > 100 * atol)) throw new Error(`${what}: the reference weights moved only ${moved} from their initial values; the test would prove nothing`);
  }
  assertClose(actual, expected, rtol, atol, what);
}

/** The initial weights of `cfg`'s model (flat, coordinator order), for the "did it train" check. */
export async function initialWeights(cfg: Config): Promise<Float32Array> {
  const tf = await loadTf();
  const model = await buildReferenceModel(tf, cfg);
  const w = flatWeights(model);
  model.dispose();
  return w;
}
