// Per-sample loss weights: read from a source (an npy file, a CSV column), checked, and combined
// with training.classWeights into the one float32 array a Dataset carries (Dataset.weights).
// The workers multiply each sample's loss by its weight; the loss stays a mean over the batch
// (Σ w_i · l_i / B), as Keras computes it.
import type { ClassWeights, LossName } from '../config/types.ts';
import { ConfigError, DataError } from '../shared/errors.ts';
import { LOSSES } from '../shared/losses-table.ts';
import type { NdArray } from '../shared/npy.ts';
import { showClasses } from './classes.ts';
import type { Dataset } from './rows.ts';

/** A weight must be a finite number >= 0: names the first that is not, in `where`. */
export function checkWeights(values: ArrayLike<number>, where: string, sample: (i: number) => string = (i) => `sample ${i}`): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!(Number.isFinite(v) && v >= 0)) {
      throw new DataError(
        `${where}: the weight of ${sample(i)} is ${v} (expected a finite number >= 0)`,
        "a sample weight scales that sample's loss: 0 leaves it out, 1 counts it once; fix or drop the sample",
      );
    }
  }
}

/**
 * The weights of an npy file as float32 [count]: shape [N] or [N, 1], N the features' sample
 * count, each finite and >= 0. `keyPath` is the source's key (data.train).
 */
export function weightsFromNpy(a: NdArray, file: string, count: number, featuresFile: string, keyPath: string): NdArray {
  const rowsShape = `[${a.shape.join(', ')}]`;
  if (!(a.shape.length === 1 || (a.shape.length === 2 && a.shape[1] === 1))) {
    throw new DataError(
      `${keyPath}.weights: ${file} has shape ${rowsShape} (expected [N] or [N, 1]: one weight per sample)`,
      "save one weight per sample, e.g. np.save(path, w.reshape(-1).astype('float32'))",
    );
  }
  if (a.shape[0] !== count) {
    throw new DataError(
      `${keyPath}.weights: ${file} holds ${a.shape[0]} weights but features ${featuresFile} hold ${count} samples (expected one weight per sample)`,
      'weight i belongs to feature row i; check that the two files come from the same split',
    );
  }
  const data = a.data instanceof Float32Array ? a.data : Float32Array.from(a.data);
  checkWeights(data, `${keyPath}.weights: ${file}`);
  return { dtype: 'float32', shape: [count], data };
}

/** The class of each sample whose loss classWeights weighs, as Keras takes it from the labels. */
function classesOf(labels: NdArray, loss: LossName, count: number, keyPath: string, source: string): Int32Array | Float32Array {
  const per = count === 0 ? 0 : labels.data.length / count;
  const form = LOSSES[loss].labels;
  if (form === 'onehot') {
    // One-hot (or probability) rows: the class is the argmax, the first of equal ones (as tf.argMax).
    const out = new Int32Array(count);
    for (let i = 0; i < count; i++) {
      let best = 0;
      for (let k = 1; k < per; k++) if (labels.data[i * per + k]! > labels.data[i * per + best]!) best = k;
      out[i] = best;
    }
    return out;
  }
  if (per !== 1) {
    const hint = form === 'binary' ? 'class weights need one 0/1 label per sample; weigh multi-label samples with sample weights instead' : undefined;
    throw new ConfigError(
      'training.classWeights',
      `${loss} labels of ${source} (${keyPath}) have ${per} values per sample; class weights need one class per sample`,
      hint,
    );
  }
  const out = Float32Array.from(labels.data);
  if (form === 'binary') {
    const bad = out.findIndex((v) => v !== 0 && v !== 1);
    if (bad >= 0) {
      throw new DataError(
        `${keyPath}: label of sample ${bad} in ${source} is ${Number(out[bad]!.toPrecision(7))}; training.classWeights needs the class of each sample, 0 or 1`,
        'soft labels have no class to weigh: use sample weights instead, or labels of 0 and 1',
      );
    }
  }
  return out;
}

/**
 * The training set with each sample's weight multiplied by its class's weight (classes not named
 * weigh 1); the source's own sample weights, if any, are kept as the other factor.
 */
export function withClassWeights(ds: Dataset, cw: ClassWeights | null, loss: LossName, keyPath: string): Dataset {
  if (cw === null) return ds;
  if (ds.labels.kind === 'made')
    throw new ConfigError(
      'training.classWeights',
      `needs every label of ${ds.source} before step 0, and its labels are read on demand`,
      'weigh the samples in the loss, or give the split as .npy or CSV',
    );
  const classes = classesOf(ds.labels.toArray(), loss, ds.count, keyPath, ds.source);
  const w = new Float32Array(ds.count);
  const base = ds.weights?.data;
  for (let i = 0; i < ds.count; i++) {
    const c = cw[String(classes[i])] ?? 1;
    w[i] = base ? Math.fround(base[i]! * c) : c;
  }
  return { ...ds, weights: { dtype: 'float32', shape: [ds.count], data: w } };
}

/**
 * Class indices of training.classWeights the model has no class for: checked once the workers
 * have built it. A softmax of K outputs has classes 0..K-1, one sigmoid output 0 and 1.
 * `outputShape` (with the batch dimension): one of more than two dimensions is refused.
 */
export function checkClassWeightsFitModel(cw: ClassWeights | null, loss: LossName, outputs: number, outputShape: readonly (number | null)[] = []): void {
  if (cw === null) return;
  if (outputShape.length > 2) {
    // An output of positions (a mask, time steps) has a class per position, not per sample (Keras
    // refuses class_weight for 3+ dimensional targets too).
    throw new ConfigError(
      'training.classWeights',
      `is set, but the model's output is [${outputShape.map((d) => d ?? 'batch').join(', ')}]: a class per position, not one class per sample to weigh`,
      'weigh samples with sample weights (npy weights: or csv weight:) instead',
    );
  }
  const binary = LOSSES[loss].labels === 'binary';
  if (binary && outputs !== 1) {
    throw new ConfigError(
      'training.classWeights',
      `is set, but the model has ${outputs} sigmoid outputs (multi-label): a sample has no one class to weigh`,
      'weigh samples with sample weights (npy weights: or csv weight:) instead',
    );
  }
  const classes = binary ? 2 : outputs;
  for (const key of Object.keys(cw)) {
    if (Number(key) >= classes) {
      throw new ConfigError(
        `training.classWeights.${key}`,
        `class ${key} is out of range: the model has ${classes} classes (0..${classes - 1})`,
        "name the classes by index, from 0 to one less than the model's outputs",
      );
    }
  }
}

/**
 * training.classWeights keyed by class name (data.train reads class names) as the same map keyed
 * by index in the run's mapping: a name that is not one of the classes is an E_CONFIG naming it
 * and listing them. Without class names the map is keyed by index already and is returned as is.
 */
export function resolveClassWeights(cw: ClassWeights | null, classes: readonly string[] | null): ClassWeights | null {
  if (cw === null || classes === null) return cw;
  const out: ClassWeights = {};
  for (const [name, w] of Object.entries(cw)) {
    const at = classes.indexOf(name);
    if (at < 0) {
      throw new ConfigError(
        `training.classWeights.${name}`,
        `${JSON.stringify(name)} is not one of the ${classes.length} classes (${showClasses(classes)})`,
        "name a class as the data names it (a CSV label column's text, an image class folder's name)",
      );
    }
    out[String(at)] = w;
  }
  return out;
}
