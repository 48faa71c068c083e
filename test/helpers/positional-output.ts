// Fixtures for models whose output has more than two dimensions (positions per sample: an 8x8
// image, 5 time steps), and their reference: tfjs-layers itself, compiled with the same loss
// name, trained with trainOnBatch on the coordinator's batches and scored with model.evaluate,
// so the reduction over positions is tfjs's own, not the project's.
import fs from 'node:fs';
import path from 'node:path';
import type { LayersModel, Scalar, Tensor } from '@tensorflow/tfjs';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import type { Config, LossName } from '../../src/config/types.ts';
import { writeNpy, type NdArray } from '../../src/shared/npy.ts';
import { mulberry32 } from '../../src/shared/rng.ts';
import { buildReferenceModel, flatWeights, loadTf, setFlatWeights, type TF } from './train-fixture.ts';

/** Writes `<dir>/<name>.mjs` building a sequential model of `layers` (tfjs source); returns its path. */
export function writeLayersModule(dir: string, name: string, layers: string): string {
  const file = path.join(dir, `${name}.mjs`);
  fs.writeFileSync(file, `export default function build(tf) {\n  return tf.sequential({ layers: [${layers}] });\n}\n`);
  return file;
}

/** Seeded features in [-1, 1) of shape [count, ...row], written to `<dir>/<name>-x.npy`. */
export function writeFeatures(dir: string, name: string, count: number, row: number[], seed: number): { file: string; x: NdArray } {
  const rng = mulberry32(seed);
  const per = row.reduce((a, b) => a * b, 1);
  const x: NdArray = { dtype: 'float32', shape: [count, ...row], data: new Float32Array(count * per).map(() => rng.float() * 2 - 1) };
  const file = path.join(dir, `${name}-x.npy`);
  writeNpy(file, x);
  return { file, x };
}

/** Writes labels to `<dir>/<name>-y.npy`; returns the path. */
export function writeLabels(dir: string, name: string, y: NdArray): string {
  const file = path.join(dir, `${name}-y.npy`);
  writeNpy(file, y);
  return file;
}

const tensorOf = (tf: TF, a: NdArray, shape: number[] = a.shape): Tensor => tf.tensor(a.data, shape, a.dtype === 'int32' ? 'int32' : 'float32');

/**
 * tfjs's own labels for a loss: sparse class indices as float32 with a trailing 1 (tfjs-layers
 * feeds a sparse output's targets as [..., 1] and floors them).
 */
function referenceLabels(tf: TF, loss: LossName, y: NdArray): Tensor {
  if (loss !== 'sparseCategoricalCrossentropy') return tensorOf(tf, y);
  return tf.tensor(Float32Array.from(y.data), y.shape[y.shape.length - 1] === 1 ? y.shape : [...y.shape, 1], 'float32');
}

/**
 * tfjs-layers' training of `cfg`'s model: compiled with `loss` (default cfg.loss) and
 * tf.train.sgd at its rate, one trainOnBatch per step of the coordinator's BatchPlan. Returns the
 * flat weights (trainable first).
 */
export async function layersReferenceTrain(cfg: Config, x: NdArray, y: NdArray, loss = cfg.loss as LossName): Promise<Float32Array> {
  const tf = await loadTf();
  if (cfg.optimizer.name !== 'sgd' || typeof loss !== 'string') throw new Error('the layers reference runs sgd on one built-in loss');
  const model = await buildReferenceModel(tf, cfg);
  model.compile({ optimizer: tf.train.sgd(cfg.optimizer.learningRate), loss });
  const xs = tensorOf(tf, x);
  const ys = referenceLabels(tf, loss, y);
  const plan = new BatchPlan(x.shape[0]!, cfg.training.batchSize, cfg.training.seed, cfg.training.dropLast, cfg.training);
  for (let step = 0; step < plan.totalSteps; step++) {
    const idx = tf.tensor1d(Array.from(plan.batchAt(step).indices), 'int32');
    const xb = tf.gather(xs, idx);
    const yb = tf.gather(ys, idx);
    await model.trainOnBatch(xb, yb);
    tf.dispose([idx, xb, yb]);
  }
  const w = flatWeights(model);
  tf.dispose([xs, ys]);
  model.dispose();
  return w;
}

/** tfjs's model.evaluate of `cfg`'s model with the given weights: its loss (`loss`, default cfg.loss) and each metric named. */
export async function layersReferenceEval(
  cfg: Config,
  weights: Float32Array,
  x: NdArray,
  y: NdArray,
  metrics: string[],
  loss = cfg.loss as LossName,
): Promise<number[]> {
  const tf = await loadTf();
  const model: LayersModel = await buildReferenceModel(tf, cfg);
  setFlatWeights(tf, model, weights);
  model.compile({ optimizer: 'sgd', loss, metrics });
  const xs = tensorOf(tf, x);
  const ys = referenceLabels(tf, loss, y);
  const out = model.evaluate(xs, ys, { batchSize: x.shape[0]! }) as Scalar[];
  const values = out.map((s) => s.dataSync()[0]!);
  tf.dispose([xs, ys, ...out]);
  model.dispose();
  return values;
}

/**
 * Keras's weighted mean squared error on an output with positions, written from its definition:
 * per step, (Σ_i w_i · mean over sample i's values of (p - y)²) / B, its gradient by
 * tf.variableGrads over the whole global batch, applied by tf.train.sgd. Flat weights back.
 */
export async function weightedSquaredErrorTrain(cfg: Config, x: NdArray, y: NdArray, w: Float32Array): Promise<Float32Array> {
  const tf = await loadTf();
  if (cfg.optimizer.name !== 'sgd') throw new Error('the weighted reference runs sgd');
  const model = await buildReferenceModel(tf, cfg);
  const optimizer = tf.train.sgd(cfg.optimizer.learningRate);
  const xs = tensorOf(tf, x);
  const ys = tensorOf(tf, y);
  const ws = tf.tensor1d(w, 'float32');
  const axes = y.shape.slice(1).map((_, i) => i + 1);
  const plan = new BatchPlan(x.shape[0]!, cfg.training.batchSize, cfg.training.seed, cfg.training.dropLast, cfg.training);
  for (let step = 0; step < plan.totalSteps; step++) {
    const idx = tf.tensor1d(Array.from(plan.batchAt(step).indices), 'int32');
    const [xb, yb, wb] = [tf.gather(xs, idx), tf.gather(ys, idx), tf.gather(ws, idx)];
    optimizer.minimize(() => {
      const err = tf.mean(tf.square(tf.sub(model.apply(xb, { training: true }) as Tensor, yb)), axes);
      return tf.div<Scalar>(tf.sum(tf.mul(err, wb)), idx.size);
    });
    tf.dispose([idx, xb, yb, wb]);
  }
  const out = flatWeights(model);
  optimizer.dispose();
  tf.dispose([xs, ys, ws]);
  model.dispose();
  return out;
}
