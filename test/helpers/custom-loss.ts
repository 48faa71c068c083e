// Custom loss modules for the tests, and a plain-tfjs single-process reference whose Huber loss
// is written here on its own (½e² - ½·relu(|e| - 1)²), not imported from the module under test.
//
//   writeLossModule()      a module file with the given source
//   HUBER_ELEMENTS         Huber (delta 1) per element, [n, k]: the run averages it over k
//   referenceHuber()       the reference's Huber, per sample [n]: mean over the last axis
//   customReferenceTrain() sgd on mean_i(w_i · l_i) over the coordinator's global batches
import fs from 'node:fs';
import path from 'node:path';
import type { LayersModel, Scalar, Tensor, Tensor1D, Variable } from '@tensorflow/tfjs';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import type { Config } from '../../src/config/types.ts';
import { readNpy, writeNpy } from '../../src/shared/npy.ts';
import { buildReferenceModel, flatWeights, loadData, loadTf, type TF } from './train-fixture.ts';

export function writeLossModule(dir: string, name: string, source: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `// written by test/helpers/custom-loss.ts\n${source}\n`);
  return file;
}

/** Huber, delta 1, per element: 0.5·q² + (|e| - q) with q = min(|e|, 1) (Keras's formula). */
export const HUBER_ELEMENTS = `export default function huber(yTrue, yPred, tf) {
  const a = tf.abs(tf.sub(yPred, yTrue));
  const q = tf.minimum(a, 1);
  return tf.add(tf.mul(0.5, tf.square(q)), tf.sub(a, q));
}`;

/**
 * The reference's Huber (delta 1), per sample: ½e² - ½·relu(|e| - 1)², which is ½e² where
 * |e| <= 1 and |e| - ½ beyond; the mean over the last axis.
 */
export function referenceHuber(tf: TF, y: Tensor, p: Tensor): Tensor1D {
  const e = tf.sub(p, y);
  const beyond = tf.relu(tf.sub(tf.abs(e), 1));
  const el = tf.mul(tf.sub(tf.square(e), tf.square(beyond)), 0.5);
  return tf.mean<Tensor1D>(el, -1);
}

/** Multiplies the labels of an .npy file by `k` in place (so that some errors pass Huber's delta). */
export function scaleLabels(file: string, k: number): void {
  const a = readNpy(file);
  writeNpy(file, { dtype: 'float32', shape: a.shape, data: Float32Array.from(a.data, (v) => v * k) });
}

/**
 * Plain tfjs: per step, sgd on mean_i(w_i · l_i(y_i, p_i)) over the coordinator's global batch
 * (w: one weight per sample of the split, or null for 1s), plus the model's regularisation.
 */
export async function customReferenceTrain(
  cfg: Config,
  perSample: (tf: TF, y: Tensor, p: Tensor) => Tensor1D,
  w: Float32Array | null,
): Promise<{ model: LayersModel; weights: Float32Array; lastLoss: number }> {
  const tf = await loadTf();
  const model = await buildReferenceModel(tf, cfg);
  const data = loadData(tf, cfg.data.train);
  const weights = w ? tf.tensor1d(w, 'float32') : null;
  const optimizer = tf.train.sgd(cfg.optimizer.learningRate);
  const vars = model.trainableWeights.map((v) => (v as unknown as { val: Variable }).val);
  const plan = new BatchPlan(data.count, cfg.training.batchSize, cfg.training.seed, cfg.training.dropLast, cfg.training);
  let lastLoss = NaN;
  for (let step = 0; step < plan.totalSteps; step++) {
    const idx = tf.tensor1d(Array.from(plan.batchAt(step).indices), 'int32');
    const x = tf.gather(data.x, idx);
    const y = tf.gather(data.y, idx);
    const wb = weights ? tf.gather(weights, idx) : null;
    const cost = optimizer.minimize(
      () => {
        const pred = model.apply(x, { training: true }) as Tensor;
        const l = perSample(tf, y, pred);
        const loss = tf.mean<Scalar>(wb ? tf.mul(l, wb) : l);
        const regs = model.calculateLosses();
        return regs.length > 0 ? tf.add(loss, tf.addN(regs)) : loss;
      },
      true,
      vars,
    );
    lastLoss = cost!.dataSync()[0]!;
    tf.dispose([idx, x, y, cost!, ...(wb ? [wb] : [])]);
  }
  optimizer.dispose();
  tf.dispose([data.x, data.y, ...(weights ? [weights] : [])]);
  return { model, weights: flatWeights(model), lastLoss };
}
