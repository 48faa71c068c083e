// The reference side of the eval-metrics tests: the trained weights loaded into a model built in
// this process, applied to the whole npy eval split at once (no shards, no batches), and the
// split's labels, both as plain arrays for the test to compute its metric by hand.
import type { Tensor } from '@tensorflow/tfjs';
import type { Config } from '../../src/config/types.ts';
import { readNpy } from '../../src/shared/npy.ts';
import { buildReferenceModel, loadTf, setFlatWeights } from './train-fixture.ts';

export interface ReferencePredictions {
  scores: Float32Array; // the model's outputs, row after row
  labels: ArrayLike<number>; // the eval split's labels as stored, row after row
}

export async function referencePredictions(cfg: Config, weights: Float32Array): Promise<ReferencePredictions> {
  const src = cfg.data.eval;
  if (src?.type !== 'npy' || typeof src.features !== 'string' || typeof src.labels !== 'string')
    throw new Error('referencePredictions: the eval split must be one npy file of features and one of labels');
  const tf = await loadTf();
  const model = await buildReferenceModel(tf, cfg);
  setFlatWeights(tf, model, weights);
  const x = readNpy(src.features);
  const pred = model.predict(tf.tensor(x.data, x.shape)) as Tensor;
  const scores = pred.dataSync() as Float32Array;
  tf.dispose(pred);
  model.dispose();
  return { scores, labels: readNpy(src.labels).data };
}

/**
 * A model with several inputs and outputs (npy files by name): each output's predictions over
 * the whole eval split at once, and that output's labels as stored, by output name.
 */
export async function referenceOutputPredictions(cfg: Config, weights: Float32Array): Promise<Record<string, ReferencePredictions & { width: number }>> {
  const src = cfg.data.eval;
  if (src?.type !== 'npy' || typeof src.features === 'string' || typeof src.labels === 'string')
    throw new Error('referenceOutputPredictions: the eval split must be npy files by input and output name');
  const tf = await loadTf();
  const model = await buildReferenceModel(tf, cfg);
  setFlatWeights(tf, model, weights);
  const features = src.features;
  const labels = src.labels;
  const xs = model.inputNames.map((name) => {
    const a = readNpy(features[name]!);
    return tf.tensor(a.data, a.shape);
  });
  const preds = model.predict(xs) as Tensor[];
  const out: Record<string, ReferencePredictions & { width: number }> = {};
  model.outputNames.forEach((name, i) => {
    const p = preds[i]!;
    out[name] = { scores: p.dataSync() as Float32Array, labels: readNpy(labels[name]!).data, width: p.shape[p.shape.length - 1]! };
  });
  tf.dispose([...xs, ...preds]);
  model.dispose();
  return out;
}
