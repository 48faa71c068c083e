// Holding out a fraction of the training split for evaluation (config `data.evalFraction`).
//
// Which samples are held out depends only on (seed, count, fraction): the first
// round(fraction * count) entries of `epochPermutation(seed, HOLDOUT_EPOCH, count)` go to eval.
// HOLDOUT_EPOCH is -1, an epoch number training never uses (epochs count from 0), so the choice
// is a stream of its own, and it is pinned like every other seeded stream: changing it changes
// which samples every run with evalFraction trains on. Both parts keep the samples in their
// original relative order; the training order is then shuffled per epoch as usual.

import { DataError } from '../shared/errors.ts';
import { VIEWS, type NdArray } from '../shared/npy.ts';
import { epochPermutation } from '../shared/rng.ts';
import { pickedColumn, pickedPipeline } from './columns.ts';
import { gatherRows, rowBytes } from './row-copy.ts';
import { type Dataset } from './rows.ts';

/** The epoch number of the hold-out permutation; never a training epoch. */
export const HOLDOUT_EPOCH = -1;

function take(src: NdArray, indices: Uint32Array): NdArray {
  const rb = rowBytes(src);
  const Ctor = VIEWS[src.dtype];
  const perRow = rb / Ctor.BYTES_PER_ELEMENT;
  const data = new Ctor(indices.length * perRow);
  gatherRows(src, indices, new Uint8Array(data.buffer, data.byteOffset, data.byteLength), 0);
  return { dtype: src.dtype, shape: [indices.length, ...src.shape.slice(1)], data };
}

/**
 * Splits `ds` into a training part and a held-out eval part of round(fraction * count) samples,
 * chosen by `seed`. `keyPath` names the config key in errors.
 */
export function splitHoldout(ds: Dataset, fraction: number, seed: number, keyPath = 'data.evalFraction'): { train: Dataset; eval: Dataset } {
  const n = ds.count;
  if (!Number.isFinite(fraction) || fraction <= 0 || fraction >= 1) {
    throw new DataError(`${keyPath}: ${fraction} is not a fraction in (0, 1) (splitting ${ds.source})`);
  }
  const k = Math.round(fraction * n);
  if (k < 1) {
    throw new DataError(
      `${keyPath}: ${fraction} of the ${n} samples of ${ds.source} rounds to 0 (expected at least 1 held-out sample)`,
      `raise ${keyPath} to at least ${(0.5 / n).toPrecision(2)}, or give an eval set in data.eval`,
    );
  }
  if (n - k < 1) {
    throw new DataError(
      `${keyPath}: ${fraction} of the ${n} samples of ${ds.source} rounds to ${k}, leaving no sample for training (expected at least 1 left)`,
      `lower ${keyPath}, or give an eval set in data.eval`,
    );
  }
  const perm = epochPermutation(seed, HOLDOUT_EPOCH, n);
  const held = new Uint8Array(n);
  for (let i = 0; i < k; i++) held[perm[i]!] = 1;
  const evalIdx = new Uint32Array(k);
  const trainIdx = new Uint32Array(n - k);
  for (let i = 0, e = 0, t = 0; i < n; i++) {
    if (held[i]) evalIdx[e++] = i;
    else trainIdx[t++] = i;
  }
  const order = ds.shardOrder; // the shard-aware order goes with its rows' shards
  const part = (idx: Uint32Array, what: string): Dataset => {
    // Several inputs or outputs: every array is split alike; features and labels are the first
    // input's and target's, not copied twice.
    // Views of the split's rows, no copy (a mapped file stays mapped).
    const inputs = ds.inputs?.map((a) => ({ ...a, array: pickedColumn(a.array, idx) }));
    const targets = ds.targets?.map((a) => ({ ...a, array: pickedColumn(a.array, idx) }));
    return {
      features: inputs?.[0]?.array ?? pickedColumn(ds.features, idx),
      labels: targets?.[0]?.array ?? pickedColumn(ds.labels, idx),
      count: idx.length,
      source: `${ds.source}, ${what} (${keyPath} ${fraction}, seed ${seed})`,
      // Sample weights go with their samples, held out or not (as Keras's validation_split).
      ...(ds.weights ? { weights: take(ds.weights, idx) } : {}),
      ...(inputs ? { inputs } : {}),
      ...(targets ? { targets } : {}),
      ...(ds.pipeline ? { pipeline: pickedPipeline(ds.pipeline, idx) } : {}),
      ...(order ? { shardOrder: { openShards: order.openShards, shardOf: idx.map((i) => order.shardOf[i]!) } } : {}),
    };
  };
  return { train: part(trainIdx, `without the ${k} held-out samples`), eval: part(evalIdx, `${k} held-out samples`) };
}
