// A small functional model with two inputs and two outputs, its data as named .npy files, and a
// plain-tfjs single-process reference of Keras's multi-output loss Σ_k lossWeights[k] · loss_k,
// each loss the mean over the global batch (written here, not taken from the code under test).
//
//   inputs  image [4], meta [3]  →  concat → dense 8 tanh → class: dense 3 softmax
//                                                          → box:   dense 2 linear
import fs from 'node:fs';
import path from 'node:path';
import type { LayersModel, Scalar, Tensor, Tensor1D, Variable } from '@tensorflow/tfjs';
import { BatchPlan } from '../../src/data/batch-plan.ts';
import type { Config } from '../../src/config/types.ts';
import { readNpy, writeNpy } from '../../src/shared/npy.ts';
import { mulberry32 } from '../../src/shared/rng.ts';
import { buildReferenceModel, flatWeights, loadTf, type TF } from './train-fixture.ts';

/** Writes `<dir>/two-io.mjs`; returns its path. */
export function writeTwoIoModel(dir: string): string {
  const file = path.join(dir, 'two-io.mjs');
  fs.writeFileSync(
    file,
    `// written by test/helpers/two-io-model.ts
export default function build(tf) {
  const image = tf.input({ shape: [4], name: 'image' });
  const meta = tf.input({ shape: [3], name: 'meta' });
  const h = tf.layers.dense({ units: 8, activation: 'tanh', name: 'hidden' }).apply(tf.layers.concatenate({ name: 'join' }).apply([image, meta]));
  const cls = tf.layers.dense({ units: 3, activation: 'softmax', name: 'class' }).apply(h);
  const box = tf.layers.dense({ units: 2, name: 'box' }).apply(h);
  return tf.model({ inputs: [image, meta], outputs: [cls, box] });
}
`,
  );
  return file;
}

export interface TwoIoFiles {
  features: { meta: string; image: string }; // deliberately not in the model's order
  labels: { box: string; class: string };
}

/** Seeded data: image [N, 4], meta [N, 3] uniform in [-1, 1); class int32 [N] and box float32 [N, 2] from a fixed teacher. */
export function writeTwoIoData(dir: string, name: string, count: number, seed: number): TwoIoFiles {
  const rng = mulberry32(seed);
  const u = () => rng.float() * 2 - 1;
  const image = new Float32Array(count * 4).map(u);
  const meta = new Float32Array(count * 3).map(u);
  const cls = new Int32Array(count);
  const box = new Float32Array(count * 2);
  for (let i = 0; i < count; i++) {
    const a = image[i * 4]! + meta[i * 3]!;
    cls[i] = a < -0.5 ? 0 : a < 0.5 ? 1 : 2;
    box[i * 2] = image[i * 4 + 1]! - 0.5 * meta[i * 3 + 1]!;
    box[i * 2 + 1] = image[i * 4 + 2]! * meta[i * 3 + 2]!;
  }
  const f = (what: string) => path.join(dir, `${name}-${what}.npy`);
  writeNpy(f('image'), { dtype: 'float32', shape: [count, 4], data: image });
  writeNpy(f('meta'), { dtype: 'float32', shape: [count, 3], data: meta });
  writeNpy(f('class'), { dtype: 'int32', shape: [count], data: cls });
  writeNpy(f('box'), { dtype: 'float32', shape: [count, 2], data: box });
  return { features: { meta: f('meta'), image: f('image') }, labels: { box: f('box'), class: f('class') } };
}

interface Loaded {
  image: Tensor;
  meta: Tensor;
  cls: Tensor;
  box: Tensor;
  count: number;
}

function load(tf: TF, files: TwoIoFiles): Loaded {
  const t = (file: string) => {
    const a = readNpy(file);
    return tf.tensor(a.data, a.shape, a.dtype === 'int32' ? 'int32' : 'float32');
  };
  const image = t(files.features.image);
  return { image, meta: t(files.features.meta), cls: t(files.labels.class), box: t(files.labels.box), count: image.shape[0] };
}

/** Per-sample losses of the two outputs: sparse categorical cross-entropy and mean squared error. */
function losses(tf: TF, cls: Tensor, box: Tensor, preds: Tensor[]): [Tensor1D, Tensor1D] {
  const onehot = tf.oneHot(tf.cast<Tensor1D>(tf.reshape(cls, [-1]), 'int32'), 3);
  return [tf.metrics.categoricalCrossentropy(onehot, preds[0]!) as Tensor1D, tf.metrics.meanSquaredError(box, preds[1]!) as Tensor1D];
}

/** Plain tfjs: per step, sgd on Σ_k lw_k · mean_i(l_k,i) over the coordinator's batches. */
export async function twoIoReferenceTrain(
  cfg: Config,
  files: TwoIoFiles,
  lw: { class: number; box: number },
): Promise<{ model: LayersModel; weights: Float32Array }> {
  const tf = await loadTf();
  const model = await buildReferenceModel(tf, cfg);
  const d = load(tf, files);
  const optimizer = tf.train.sgd(cfg.optimizer.learningRate);
  const vars = model.trainableWeights.map((v) => (v as unknown as { val: Variable }).val);
  const plan = new BatchPlan(d.count, cfg.training.batchSize, cfg.training.seed, cfg.training.dropLast, cfg.training);
  for (let step = 0; step < plan.totalSteps; step++) {
    const idx = tf.tensor1d(Array.from(plan.batchAt(step).indices), 'int32');
    const [image, meta, cls, box] = [d.image, d.meta, d.cls, d.box].map((t) => tf.gather(t, idx));
    optimizer.minimize(
      () => {
        const preds = model.apply([image!, meta!], { training: true }) as Tensor[];
        const [lc, lb] = losses(tf, cls!, box!, preds);
        return tf.add<Scalar>(tf.mul(tf.mean(lc), lw.class), tf.mul(tf.mean(lb), lw.box));
      },
      false,
      vars,
    );
    tf.dispose([idx, image!, meta!, cls!, box!]);
  }
  optimizer.dispose();
  tf.dispose([d.image, d.meta, d.cls, d.box]);
  return { model, weights: flatWeights(model) };
}

/** Each output's mean loss over a whole split, in inference mode. */
export async function twoIoEvalLosses(model: LayersModel, files: TwoIoFiles): Promise<{ class: number; box: number }> {
  const tf = await loadTf();
  const d = load(tf, files);
  const [c, b] = tf.tidy(() => losses(tf, d.cls, d.box, model.apply([d.image, d.meta], { training: false }) as Tensor[]).map((l) => tf.mean(l)));
  const out = { class: c!.dataSync()[0]!, box: b!.dataSync()[0]! };
  tf.dispose([c!, b!, d.image, d.meta, d.cls, d.box]);
  return out;
}
