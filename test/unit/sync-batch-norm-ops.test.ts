// syncBatchNormOps (training.syncBatchNorm on backends without the fused kernels) computes, on
// one worker's shard, what plain tfjs computes over the whole batch restricted to that shard's
// rows: y, the batch mean and biased variance, and dx of Σ(y·w); while dgamma and dbeta are the
// shard's own sums (the engine adds the workers' up). The batch is split into 2 and 3 uneven
// shards, channels last at rank 4 and rank 2, C = 17 included, and once with a mean of +1000
// (where float32 sums of x and x² would cancel). The other workers' partial sums come from a fake
// exchange computed in plain float64 loops here, as a peer would (the forward about its own mean,
// the gradient around the same float32 mean);
// the reference for the whole batch is tf.moments + tf.batchNorm and tf.grads through them on the
// cpu backend. An exchange that answers null gives the shard's own statistics (no throw), one
// worker whose exchange returns what it was given is plain tfjs on its rows, an empty shard takes
// the others' statistics, and nothing leaks tensors. Bad inputs and a wrong-length answer are
// refused with what is wrong.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import type { BatchNormSum } from '../../src/worker/batch-norm-sum.ts';
import { syncBatchNormOps } from '../../src/worker/sync-batch-norm-ops.ts';
import { assertClose, randomUniform, seededRandom } from '../helpers/close.ts';

const EPS = 1e-3;

before(async () => {
  await tf.setBackend('cpu');
});

/** What one BatchNormalization in training gives: forward values and the gradients of Σ(y·w). */
interface Outcome {
  y: Float32Array;
  mean: Float32Array;
  variance: Float32Array;
  dx: Float32Array;
  dgamma: Float32Array;
  dbeta: Float32Array;
}

interface Batch {
  x: Float32Array; // every shard's rows, concatenated along axis 0
  w: Float32Array; // the weights of Σ(y·w): dy
  gamma: Float32Array;
  beta: Float32Array;
  inner: number[]; // one example's shape, channels last
  leading: number[]; // each shard's first dimension
}

const sizeOf = (shape: number[]) => shape.reduce((a, b) => a * b, 1);
const channelsOf = (b: Batch) => b.inner[b.inner.length - 1]!;
/** Rows ([R, C] once reshaped) of one example. */
const rowsPerExample = (b: Batch) => sizeOf(b.inner) / channelsOf(b);
/** Shard k's rows [start, end) of the batch's [R, C]. */
function rowRange(b: Batch, k: number): [number, number] {
  const before = b.leading.slice(0, k).reduce((a, v) => a + v, 0);
  return [before * rowsPerExample(b), (before + b.leading[k]!) * rowsPerExample(b)];
}
const slice = (v: Float32Array, b: Batch, k: number) => {
  const [start, end] = rowRange(b, k);
  return v.slice(start * channelsOf(b), end * channelsOf(b));
};

function makeBatch(inner: number[], leading: number[], offset: number, seed: number): Batch {
  const rand = seededRandom(seed);
  const n = sizeOf([leading.reduce((a, v) => a + v, 0), ...inner]);
  const C = inner[inner.length - 1]!;
  const x = randomUniform(rand, n, -2, 3).map((v) => Math.fround(v + offset));
  return { x, w: randomUniform(rand, n), gamma: randomUniform(rand, C, 0.5, 1.5), beta: randomUniform(rand, C), inner, leading };
}

/** Plain tfjs over the given rows: tf.moments, tf.batchNorm, tf.grads of Σ(y·w). */
function plainTfjs(x: Float32Array, w: Float32Array, b: Batch): Outcome {
  return tf.tidy(() => {
    const shape = [x.length / sizeOf(b.inner), ...b.inner];
    const axes = shape.slice(0, -1).map((_, i) => i);
    const wT = tf.tensor(w, shape);
    const forward = (xT: tf.Tensor, g: tf.Tensor, beta: tf.Tensor) => {
      const { mean, variance } = tf.moments(xT, axes);
      return { mean, variance, y: tf.batchNorm(xT, mean, variance, beta, g, EPS) };
    };
    const inputs = [tf.tensor(x, shape), tf.tensor1d(b.gamma), tf.tensor1d(b.beta)] as const;
    const { y, mean, variance } = forward(...inputs);
    const [dx, dgamma, dbeta] = tf.grads((xT, g, beta) => tf.sum(tf.mul(forward(xT, g, beta).y, wT)))([...inputs]);
    const read = (t: tf.Tensor | undefined) => t!.dataSync() as Float32Array;
    return { y: read(y), mean: read(mean), variance: read(variance), dx: read(dx), dgamma: read(dgamma), dbeta: read(dbeta) };
  });
}

/** syncBatchNormOps on shard k's rows, differentiated through tf.grads of Σ(y·w). */
function ours(b: Batch, k: number, sum: BatchNormSum): Outcome {
  const shape = [b.leading[k]!, ...b.inner];
  const xT = tf.tensor(slice(b.x, b, k), shape);
  const wT = tf.tensor(slice(b.w, b, k), shape);
  const gammaT = tf.tensor1d(b.gamma);
  const betaT = tf.tensor1d(b.beta);
  const read = (t: tf.Tensor) => t.dataSync() as Float32Array;
  let forward: Pick<Outcome, 'y' | 'mean' | 'variance'> | null = null;
  const [dx, dgamma, dbeta] = tf.grads((x, g, beta) => {
    const out = syncBatchNormOps(tf, x, g, beta, EPS, sum);
    forward = { y: read(out.y), mean: read(out.mean), variance: read(out.variance) }; // tf.grads disposes them
    return tf.sum(tf.mul(out.y, wT));
  })([xT, gammaT, betaT]);
  const outcome = { ...forward!, dx: read(dx!), dgamma: read(dgamma!), dbeta: read(dbeta!) };
  tf.dispose([xT, wT, gammaT, betaT, dx!, dgamma!, dbeta!]);
  return outcome;
}

/**
 * The exchange as shard k sees it: its partial plus every other shard's, those computed here in
 * float64 over the other rows (the forward's [R, Σx, Σ(x - m)² + (Σx)²/R] with m each shard's own
 * mean, the gradient's [R, Σdy, Σdy·(x - mean)]), the mean being the float32 one every worker
 * derives from the first exchange. `calls` records each partial received.
 */
function peersSum(b: Batch, k: number, calls: Float64Array[]): BatchNormSum {
  const C = channelsOf(b);
  const others: number[] = [];
  b.leading.forEach((_, j) => {
    if (j === k) return;
    const [start, end] = rowRange(b, j);
    for (let r = start; r < end; r++) others.push(r);
  });
  const mean = new Float64Array(C);
  return (partial) => {
    calls.push(Float64Array.from(partial));
    const out = Float64Array.from(partial);
    const add = (from: number, value: (r: number, c: number) => number) => {
      for (const r of others) for (let c = 0; c < C; c++) out[from + c]! += value(r, c);
    };
    const x = (r: number, c: number) => b.x[r * C + c]!;
    if (calls.length === 1) {
      // Each other shard on its own, about its own mean, as its worker sends it.
      b.leading.forEach((_, j) => {
        const [start, end] = rowRange(b, j);
        if (j === k || end === start) return;
        const n = end - start;
        for (let c = 0; c < C; c++) {
          let sx = 0;
          for (let r = start; r < end; r++) sx += x(r, c);
          let m2 = 0;
          for (let r = start; r < end; r++) m2 += (x(r, c) - sx / n) ** 2;
          out[1 + c]! += sx;
          out[1 + C + c]! += m2 + (sx * sx) / n;
        }
        out[0]! += n;
      });
      for (let c = 0; c < C; c++) mean[c] = Math.fround(out[1 + c]! / out[0]!);
    } else {
      out[0]! += others.length;
      add(1, (r, c) => b.w[r * C + c]!);
      add(1 + C, (r, c) => b.w[r * C + c]! * (x(r, c) - mean[c]!));
    }
    return out;
  };
}

/** Shard k's own dgamma and dbeta, Σ w·x̂ and Σ w over its rows, x̂ from the whole batch's moments, in float64. */
function localParameterGrads(b: Batch, k: number): { dgamma: Float64Array; dbeta: Float64Array } {
  const C = channelsOf(b);
  const rows = b.x.length / C;
  const mean = new Float64Array(C);
  const m2 = new Float64Array(C);
  for (let r = 0; r < rows; r++) for (let c = 0; c < C; c++) mean[c]! += b.x[r * C + c]! / rows;
  for (let r = 0; r < rows; r++) for (let c = 0; c < C; c++) m2[c]! += (b.x[r * C + c]! - mean[c]!) ** 2;
  const dgamma = new Float64Array(C);
  const dbeta = new Float64Array(C);
  const [start, end] = rowRange(b, k);
  for (let r = start; r < end; r++)
    for (let c = 0; c < C; c++) {
      const w = b.w[r * C + c]!;
      dgamma[c]! += (w * (b.x[r * C + c]! - mean[c]!)) / Math.sqrt(m2[c]! / rows + EPS);
      dbeta[c]! += w;
    }
  return { dgamma, dbeta };
}

/** y, mean, variance and dx of ours against the expected; the mean relative to its size (x's offset). */
function assertForwardAndDx(got: Outcome, want: Outcome, what: string): void {
  assertClose(got.y, want.y, 1e-5, 1e-5, `${what}: y`);
  assertClose(got.mean, want.mean, 1e-6, 1e-6, `${what}: mean`);
  assertClose(got.variance, want.variance, 1e-5, 1e-6, `${what}: variance`);
  assertClose(got.dx, want.dx, 1e-5, 1e-5, `${what}: dx`);
}

// [shard A's shape, offset added to x]; the batch is A and one more shard, then one shard before
// A and one after, each of another first dimension than A's (uneven shards).
const CASES: [number[], number][] = [
  [[2, 3, 4, 5], 0],
  [[3, 5, 5, 17], 0],
  [[6, 7], 0], // rank 2: [rows, features]
  [[2, 3, 4, 5], 1000],
];
/** [every shard's first dimension, A's index] for a batch of 2 and of 3 shards. */
const splits = (a: number): [number[], number][] => [
  [[a, a + 1], 0],
  [[1, a, a + 2], 1],
];

for (const [[a, ...inner], offset] of CASES)
  for (const [leading, k] of splits(a!)) {
    const what = `[${a},${inner}]${offset ? ` + ${offset}` : ''} as shard ${k + 1} of ${leading.length}`;
    test(`${what}: y, mean, variance and dx are the whole batch's on its rows; dgamma and dbeta its own`, () => {
      const b = makeBatch(inner, leading, offset, inner.length * 1000 + sizeOf(inner) + leading.length + offset);
      const before = tf.memory().numTensors;
      const calls: Float64Array[] = [];
      const got = ours(b, k, peersSum(b, k, calls));
      assert.equal(tf.memory().numTensors, before, 'tensors left behind');
      const C = channelsOf(b);
      assert.deepEqual(
        calls.map((p) => p.length),
        [2 * C + 1, 2 * C + 1],
        'the exchanges: [R, Σx, Σ(x - m)² + (Σx)²/R], [R, Σdy, Σdy·(x - mean)]',
      );
      const rowsA = a! * rowsPerExample(b);
      assert.deepEqual([calls[0]![0], calls[1]![0]], [rowsA, rowsA], "the row count sent is the shard's");

      const whole = plainTfjs(b.x, b.w, b);
      const want = { ...whole, y: slice(whole.y, b, k), dx: slice(whole.dx, b, k) };
      assertForwardAndDx(got, want, what);
      const own = localParameterGrads(b, k);
      // The float32 mean (near the offset) is off the float64 one by up to half its ulp (3e-5 at
      // 1000): Σ w·x̂ over the shard's rows inherits that times Σw / σ.
      assertClose(got.dgamma, own.dgamma, 1e-5, 1e-5 * Math.max(1, offset / 100), `${what}: dgamma`);
      assertClose(got.dbeta, own.dbeta, 1e-5, 1e-5, `${what}: dbeta`);
    });
  }

test('an exchange answering null (an abandoned step) gives the shard its own statistics, without throwing', () => {
  const b = makeBatch([3, 4, 5], [2, 3], 0, 7);
  let calls = 0;
  const got = ours(b, 1, () => (calls++, null));
  assert.equal(calls, 2);
  assertForwardAndDx(got, plainTfjs(slice(b.x, b, 1), slice(b.w, b, 1), b), 'null');
});

test('one worker whose exchange returns what it was given is plain tfjs on its rows', () => {
  const b = makeBatch([5, 5, 17], [3], 0, 11);
  const got = ours(b, 0, (partial) => partial);
  const want = plainTfjs(b.x, b.w, b);
  assertForwardAndDx(got, want, 'one worker');
  assertClose(got.dgamma, want.dgamma, 1e-5, 1e-5, 'one worker: dgamma');
  assertClose(got.dbeta, want.dbeta, 1e-5, 1e-5, 'one worker: dbeta');
});

test("a shard of no rows takes the other workers' statistics: no output, zero dgamma and dbeta", () => {
  const b = makeBatch([2, 2, 3], [0, 4], 0, 13);
  const got = ours(b, 0, peersSum(b, 0, []));
  const whole = plainTfjs(b.x, b.w, b);
  assert.deepEqual([got.y.length, got.dx.length], [0, 0]);
  assertClose(got.mean, whole.mean, 1e-6, 1e-6, 'empty shard: mean');
  assertClose(got.variance, whole.variance, 1e-5, 1e-6, 'empty shard: variance');
  assert.deepEqual([Array.from(got.dgamma), Array.from(got.dbeta)], [new Array(3).fill(0), new Array(3).fill(0)]);
});

test('forward only (no tape): y, mean and variance are the only tensors it leaves, and the exchange runs once', () => {
  const b = makeBatch([7], [4], 0, 17);
  const [x, gamma, beta] = [tf.tensor(b.x, [4, 7]), tf.tensor1d(b.gamma), tf.tensor1d(b.beta)];
  const before = tf.memory().numTensors;
  let calls = 0;
  const out = syncBatchNormOps(tf, x, gamma, beta, EPS, (p) => (calls++, p));
  assert.equal(calls, 1);
  assert.equal(tf.memory().numTensors, before + 3);
  assertClose(out.y.dataSync(), plainTfjs(b.x, b.w, b).y, 1e-5, 1e-5, 'forward only: y');
  tf.dispose([out.y, out.mean, out.variance, x, gamma, beta]);
});

test('bad inputs and a wrong-length answer are refused, saying what is wrong', () => {
  const same: BatchNormSum = (p) => p;
  /** An exchange that answers one value short on its n-th call (1-based), as given before it. */
  const shortOn = (n: number): BatchNormSum => {
    let calls = 0;
    return (p) => (++calls === n ? p.subarray(1) : p);
  };
  const x = tf.zeros([2, 3]);
  const c3 = tf.ones([3]);
  const c4 = tf.ones([4]);
  const differentiated = (sum: BatchNormSum) => tf.grads((xT) => syncBatchNormOps(tf, xT, c3, c3, EPS, sum).y)([x]);
  const cases: [string, () => unknown, RegExp][] = [
    ['rank 1', () => syncBatchNormOps(tf, c3, c3, c3, EPS, same), /x must have rank 2 or more .*got shape \[3\]/],
    ['int32', () => syncBatchNormOps(tf, tf.zeros([2, 3], 'int32'), c3, c3, EPS, same), /x must be float32, got int32/],
    ['gamma', () => syncBatchNormOps(tf, x, c4, c3, EPS, same), /gamma must have shape \[3\] .*got \[4\]/],
    ['beta of rank 2', () => syncBatchNormOps(tf, x, c3, tf.ones([3, 1]), EPS, same), /beta must have shape \[3\] .*got \[3,1\]/],
    [
      'forward answer',
      () => syncBatchNormOps(tf, x, c3, c3, EPS, shortOn(1)),
      /the exchange of the sums of x and \(x - mean\)² answered 6 values for the 7 sent/,
    ],
    ['gradient answer', () => differentiated(shortOn(2)), /the exchange of the gradient's sums of dy and dy·\(x - mean\) answered 6 values for the 7 sent/],
  ];
  for (const [what, call, message] of cases) assert.throws(call, message, what);
});
