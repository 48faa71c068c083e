// A single-process reference for weighted losses, written from Keras's definition and not from
// the code under test: per step, the loss is the MEAN over the global batch of w_i · l_i, where
// w_i = classWeight[class_i] · sampleWeight_i (class_i the label's index, or the argmax of a
// one-hot row; classes not listed weigh 1), plus the model's regularisation losses unweighted.
// tf.variableGrads of that over the whole batch, applied by the tfjs optimizer. Also the weights
// files the tests train on, and the weighted evaluation.
import path from 'node:path';
import type { LayersModel, Scalar, Tensor, Tensor1D, Variable } from '@tensorflow/tfjs';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import type { Config, DataSource } from '../../src/config/types.ts';
import { writeNpy } from '../../src/shared/npy.ts';
import { mulberry32 } from '../../src/shared/rng.ts';
import { buildReferenceModel, flatWeights, loadData, loadTf, perSampleLoss, type TF } from './train-fixture.ts';

/** Seeded sample weights in [0, 2), every fifth one 0; written as float32 [count] (or [count, 1]) to `<dir>/<name>-w.npy`. */
export function writeWeights(dir: string, name: string, count: number, seed: number, column = false): { file: string; values: Float32Array } {
  const rng = mulberry32(seed);
  const values = new Float32Array(count).map((_, i) => (i % 5 === 3 ? 0 : rng.float() * 2));
  const file = path.join(dir, `${name}-w.npy`);
  writeNpy(file, { dtype: 'float32', shape: column ? [count, 1] : [count], data: values });
  return { file, values };
}

/** w_i for every sample of `src`: classWeights by class (missing: 1) times sampleWeights (null: 1). */
export function sampleWeightsOf(tf: TF, src: DataSource, classWeights: Record<number, number> | null, sampleWeights: Float32Array | null): Tensor1D {
  const data = loadData(tf, src);
  const w = tf.tidy(() => {
    let out: Tensor = sampleWeights ? tf.tensor1d(sampleWeights, 'float32') : tf.ones([data.count]);
    if (classWeights) {
      const classes = data.y.rank === 2 && data.y.shape[1]! > 1 ? tf.argMax(data.y, 1) : tf.cast(tf.reshape(data.y, [-1]), 'int32');
      const table = Array.from({ length: 16 }, (_, c) => classWeights[c] ?? 1);
      out = tf.mul(tf.gather(tf.tensor1d(table, 'float32'), classes), out);
    }
    return out as Tensor1D;
  });
  tf.dispose([data.x, data.y]);
  return w;
}

export interface WeightedReference {
  tf: TF;
  model: LayersModel;
  weights: Float32Array; // flat, trainable then non-trainable
  lastLoss: number; // the last step's weighted mean loss (regularisation excluded)
}

/** Plain tfjs training with loss = mean_i(w_i · l_i) + regs, on the coordinator's batches (sgd or momentum). */
export async function weightedReferenceTrain(cfg: Config, w: Tensor1D): Promise<WeightedReference> {
  const tf = await loadTf();
  const model = await buildReferenceModel(tf, cfg);
  const data = loadData(tf, cfg.data.train);
  const o = cfg.optimizer;
  const optimizer = o.name === 'sgd' ? tf.train.sgd(o.learningRate) : o.name === 'momentum' ? tf.train.momentum(o.learningRate, o.momentum) : null;
  if (!optimizer) throw new Error(`the weighted reference has no ${o.name}`);
  const vars = model.trainableWeights.map((v) => (v as unknown as { val: Variable }).val);
  const plan = new BatchPlan(data.count, cfg.training.batchSize, cfg.training.seed, cfg.training.dropLast, cfg.training);
  let lastLoss = NaN;
  for (let step = 0; step < plan.totalSteps; step++) {
    const idx = tf.tensor1d(Array.from(plan.batchAt(step).indices), 'int32');
    const x = tf.gather(data.x, idx);
    const y = tf.gather(data.y, idx);
    const wb = tf.gather(w, idx);
    let weighted: Scalar | null = null;
    optimizer.minimize(
      () => {
        const pred = model.apply(x, { training: true }) as Tensor;
        const l = tf.mean<Scalar>(tf.mul(perSampleLoss(tf, cfg.loss, y, pred), wb));
        weighted = tf.keep(tf.clone(l));
        const regs = model.calculateLosses();
        return regs.length > 0 ? tf.add(l, tf.addN(regs)) : l;
      },
      false,
      vars,
    );
    lastLoss = (weighted as unknown as Scalar).dataSync()[0]!;
    tf.dispose([idx, x, y, wb, weighted as unknown as Scalar]);
  }
  optimizer.dispose();
  tf.dispose([data.x, data.y]);
  return { tf, model, weights: flatWeights(model), lastLoss };
}

/** Σ w_i · l_i / N over a whole split, in inference mode (Keras's weighted validation loss). */
export function weightedEvalLoss(tf: TF, model: LayersModel, src: DataSource, loss: Config['loss'], w: Tensor1D | null): number {
  const data = loadData(tf, src);
  const sum = tf.tidy(() => {
    const l = perSampleLoss(tf, loss, data.y, model.apply(data.x, { training: false }) as Tensor);
    return tf.sum(w ? tf.mul(l, w) : l);
  });
  const out = sum.dataSync()[0]! / data.count;
  tf.dispose([sum, data.x, data.y]);
  return out;
}
