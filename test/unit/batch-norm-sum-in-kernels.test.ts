// With a sum over the workers installed (src/worker/batch-norm-sum.ts: training.syncBatchNorm),
// the wasm fused BatchNorm kernels (src/worker/wasm-kernels/batch-norm-train.ts, in C in
// native/src/batch-norm.c) compute on one worker's shard what one process computes over the
// union of every worker's rows: y, dx (its rows of them), the mean and the biased variance are
// the full batch's, while dgamma and dbeta stay the shard's own (the engine sums every worker's
// weight gradients itself). Why: data-parallel training with per-worker statistics is a
// different model from the one-process one, and only the sums make N workers agree with it.
//
// How: a batch is cut into 2 or 3 uneven shards; the kernels run on one of them (forward, then
// the gradient through tf.grads, with a loss that reaches the mean and variance outputs too, so
// dmean and dvariance are summed) under a fake sum that adds the other shards' partial sums,
// computed here by plain float64 loops (what their workers would send). The results are checked
// against tfjs's op-by-op batch norm (tf.moments, tf.batchNorm, tf.grads) on the cpu backend over
// the whole batch, and dgamma and dbeta against the shard's own sums. Also: the exchange's
// protocol (two calls, of 2C+1 and 4C+1 values; a wrong answer's length is an error), a
// gradient called without dmean and dvariance (zeros sent), a shard without rows, a sum that
// abandons the exchange (null: the shard's own statistics, no throw), and no sum installed (the
// bits the kernels gave before the sums existed). Both with the addon's C loops and with
// MGPU_NATIVE_CONV=0 (the JavaScript ones), which agree bit for bit.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { setBatchNormSum, type BatchNormSum } from '../../src/worker/batch-norm-sum.ts';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { nativeConv, resetNativeConv } from '../../src/worker/wasm-kernels/native-conv.ts';
import { assertClose, randomUniform, seededRandom } from '../helpers/close.ts';
import { nativeSkip } from '../helpers/native.ts';

tf.env().set('IS_TEST', true);
const skip = nativeSkip(nativeConv().addon ? false : `the convolution addon is not in use: ${nativeConv().reason}`);
const EPS = 1e-3;

type Shape = [number, number, number, number];
interface Case {
  shape: Shape; // the whole batch, NHWC
  shards: number[]; // its cut along the batch axis, uneven
  at: number; // the shard the kernels run on
  offset?: number; // added to x: a large mean
}
const CASES: Case[] = [
  { shape: [5, 3, 4, 5], shards: [2, 3], at: 0 },
  { shape: [5, 3, 4, 5], shards: [1, 2, 2], at: 1 },
  { shape: [7, 5, 5, 17], shards: [3, 4], at: 0 },
  { shape: [7, 5, 5, 17], shards: [2, 3, 2], at: 1 },
  { shape: [5, 3, 4, 5], shards: [2, 3], at: 0, offset: 1000 },
  { shape: [6, 5, 5, 17], shards: [1, 3, 2], at: 1, offset: 1000 },
];
const label = (c: Case) => `[${c.shape}] as [${c.shards}], shard ${c.at}${c.offset ? `, + ${c.offset}` : ''}`;

interface Inputs {
  x: Float32Array;
  dy: Float32Array;
  gamma: Float32Array;
  beta: Float32Array;
  dmean: Float32Array;
  dvariance: Float32Array;
}

/** Seeded inputs for `shape`; `dmean` and `dvariance` weigh the mean and variance outputs in the loss. */
function inputs(shape: Shape, offset = 0): Inputs {
  const rand = seededRandom(shape.reduce((a, v) => a * 31 + v, 7) + offset);
  const n = shape.reduce((a, b) => a * b, 1);
  const C = shape[3];
  return {
    x: randomUniform(rand, n, -2, 3).map((v) => v + offset),
    dy: randomUniform(rand, n),
    gamma: randomUniform(rand, C, 0.5, 1.5),
    beta: randomUniform(rand, C),
    dmean: randomUniform(rand, C),
    dvariance: randomUniform(rand, C),
  };
}

/** One worker's part of the batch: its rows of x and dy, and its own weights on the mean and variance outputs. */
interface Shard {
  shape: Shape;
  rows: number;
  x: Float32Array;
  dy: Float32Array;
  dmean: Float32Array;
  dvariance: Float32Array;
}

function shardsOf(c: Case, v: Inputs): Shard[] {
  const [, H, W, C] = c.shape;
  const rand = seededRandom(c.shards.length * 1009 + c.at);
  let from = 0;
  return c.shards.map((n) => {
    const rows = n * H * W;
    const cut = (a: Float32Array) => a.slice(from * C, (from + rows) * C);
    const shard = { shape: [n, H, W, C] as Shape, rows, x: cut(v.x), dy: cut(v.dy), dmean: randomUniform(rand, C), dvariance: randomUniform(rand, C) };
    from += rows;
    return shard;
  });
}

/** Σ over the shards of a per-channel array, in float64. */
const total = (shards: Shard[], pick: (s: Shard) => Float32Array, C: number) =>
  Float64Array.from({ length: C }, (_, c) => shards.reduce((a, s) => a + pick(s)[c]!, 0));

// ---- The other workers, written here: their partial sums, in float64 over their rows ----

function columnSums(s: Shard, C: number, term: (x: number, dy: number, c: number) => number): Float64Array {
  const out = new Float64Array(C);
  for (let r = 0; r < s.rows; r++) for (let c = 0; c < C; c++) out[c]! += term(s.x[r * C + c]!, s.dy[r * C + c]!, c);
  return out;
}

/**
 * A sum that adds what `others` would send to the partial sums it is handed:
 * [R, Σx, Σ(x - m)² + (Σx)²/R] with m each one's own mean (the forward's one exchange), then
 * [R, Σdy, Σdy·(x - mean), dmean, dvariance] with the float32 mean the kernels output (from
 * the first exchange's sums). `lengths` records each call.
 */
function otherWorkers(others: Shard[], C: number, lengths: number[]): BatchNormSum {
  let mu = new Float64Array(C);
  return (partial) => {
    lengths.push(partial.length);
    const out = Float64Array.from(partial);
    const add = (at: number, sums: Float64Array | Float32Array) => sums.forEach((v, c) => (out[at + c]! += v));
    for (const s of others) {
      if (s.rows === 0) continue; // it sends zeros
      if (lengths.length === 1) {
        const sx = columnSums(s, C, (x) => x);
        const own = sx.map((v) => v / s.rows);
        out[0]! += s.rows;
        add(1, sx);
        add(
          1 + C,
          columnSums(s, C, (x, _, c) => (x - own[c]!) * (x - own[c]!)).map((v, c) => v + (sx[c]! * sx[c]!) / s.rows),
        );
      } else {
        out[0]! += s.rows;
        add(
          1,
          columnSums(s, C, (_, dy) => dy),
        );
        add(
          1 + C,
          columnSums(s, C, (x, dy, c) => dy * (x - Math.fround(mu[c]!))),
        );
        add(1 + 2 * C, s.dmean);
        add(1 + 3 * C, s.dvariance);
      }
    }
    if (lengths.length === 1) mu = Float64Array.from({ length: C }, (_, c) => out[1 + c]! / out[0]!);
    return out;
  };
}

// ---- Running the kernels on a shard (wasm) ----

interface Outputs {
  y: Float32Array;
  mean: Float32Array;
  variance: Float32Array;
  dx: Float32Array;
  dgamma: Float32Array;
  dbeta: Float32Array;
}

/** The kernels forward, then their gradient of sum(y·dy) + sum(mean·dmean) + sum(variance·dvariance), on the wasm backend, with `sum` installed. */
function runShard(s: Shard, v: Inputs, sum: BatchNormSum | null): Outputs {
  setBatchNormSum(sum);
  try {
    return tf.tidy(() => {
      let forward: Float32Array[] = [];
      const grads = tf.grads((x, gamma, beta) => {
        const [y, mean, variance] = tf.engine().runKernel<tf.Tensor[]>('MgpuBatchNormTrain', { x, gamma, beta }, { epsilon: EPS });
        forward = [y!, mean!, variance!].map((t) => t.dataSync() as Float32Array);
        const weigh = (t: tf.Tensor, w: ArrayLike<number>) => tf.sum(tf.mul(t, tf.tensor(Float32Array.from(w), t.shape)));
        return tf.addN([weigh(y!, s.dy), weigh(mean!, s.dmean), weigh(variance!, s.dvariance)]);
      })([tf.tensor4d(s.x, s.shape), tf.tensor1d(v.gamma), tf.tensor1d(v.beta)]);
      const [dx, dgamma, dbeta] = grads.map((t) => t.dataSync() as Float32Array);
      const [y, mean, variance] = forward;
      return { y: y!, mean: mean!, variance: variance!, dx: dx!, dgamma: dgamma!, dbeta: dbeta! };
    });
  } finally {
    setBatchNormSum(null);
  }
}

function useNative(on: boolean): void {
  unregisterWasmGradKernels(tf);
  if (on) delete process.env.MGPU_NATIVE_CONV;
  else process.env.MGPU_NATIVE_CONV = '0';
  resetNativeConv();
  registerWasmGradKernels(tf);
}

/** The wasm backend, on the C loops or (MGPU_NATIVE_CONV=0) the JavaScript ones. */
async function wasm(native: boolean): Promise<void> {
  await tf.setBackend('wasm');
  useNative(native);
}

after(() => {
  setBatchNormSum(null);
  useNative(true);
  unregisterWasmGradKernels(tf);
});

// ---- The reference: tfjs's op-by-op batch norm over the whole batch, on cpu ----

/**
 * y, mean, variance, dx, dgamma, dbeta of the whole batch, the loss weighing the mean and the
 * variance by the sums of every shard's weights. tfjs's float32 moments of values near 1000
 * lose ~1e-3 of a standard deviation, while the batch norm is the same for x shifted: tfjs runs
 * on x - offset (exact in float32 there) and the mean is shifted back.
 */
async function fullBatch(c: Case, v: Inputs, shards: Shard[]): Promise<Outputs> {
  await tf.setBackend('cpu');
  const C = c.shape[3];
  const offset = c.offset ?? 0;
  return tf.tidy(() => {
    let forward: Float32Array[] = [];
    const weights = [total(shards, (s) => s.dmean, C), total(shards, (s) => s.dvariance, C)].map((w) => tf.tensor1d(Float32Array.from(w)));
    const grads = tf.grads((x, gamma, beta) => {
      const m = tf.moments(x, [0, 1, 2]);
      const y = tf.batchNorm4d(x as tf.Tensor4D, m.mean as tf.Tensor1D, m.variance as tf.Tensor1D, beta as tf.Tensor1D, gamma as tf.Tensor1D, EPS);
      forward = [y, m.mean, m.variance].map((t) => t.dataSync() as Float32Array);
      return tf.addN([tf.sum(tf.mul(y, tf.tensor4d(v.dy, c.shape))), tf.sum(tf.mul(m.mean, weights[0]!)), tf.sum(tf.mul(m.variance, weights[1]!))]);
    })([
      tf.tensor4d(
        v.x.map((xi) => xi - offset),
        c.shape,
      ),
      tf.tensor1d(v.gamma),
      tf.tensor1d(v.beta),
    ]);
    const [dx, dgamma, dbeta] = grads.map((t) => t.dataSync() as Float32Array);
    const [y, mean, variance] = forward;
    return { y: y!, mean: mean!.map((m) => m + offset), variance: variance!, dx: dx!, dgamma: dgamma!, dbeta: dbeta! };
  });
}

/** A shard's own dgamma and dbeta in float64: Σdy·(x - mean)/σ and Σdy over its rows, for the float32 mean and variance given. */
function ownParams(s: Shard, C: number, mean: Float32Array, variance: Float32Array): { dgamma: Float64Array; dbeta: Float64Array } {
  const dbeta = columnSums(s, C, (_, dy) => dy);
  const dgamma = columnSums(s, C, (x, dy, c) => dy * (x - mean[c]!)).map((v, c) => v / Math.sqrt(variance[c]! + EPS));
  return { dgamma, dbeta };
}

/** The rows of shard `at` in an array of the whole batch. */
function rowsOf(c: Case, at: number, a: Float32Array): Float32Array {
  const perRow = c.shape[1] * c.shape[2] * c.shape[3];
  const from = c.shards.slice(0, at).reduce((x, n) => x + n, 0);
  return a.slice(from * perRow, (from + c.shards[at]!) * perRow);
}

const synced = new Map<string, Outputs>();

for (const native of [true, false]) {
  const mode = native ? 'native' : 'MGPU_NATIVE_CONV=0';
  for (const c of CASES) {
    test(`${mode}: ${label(c)} with the other shards' sums == tfjs's batch norm over the whole batch on cpu`, { skip: native ? skip : false }, async () => {
      const v = inputs(c.shape, c.offset);
      const shards = shardsOf(c, v);
      const want = await fullBatch(c, v, shards);
      await wasm(native);
      const C = c.shape[3];
      const lengths: number[] = [];
      const mine = shards[c.at]!;
      const got = runShard(
        mine,
        v,
        otherWorkers(
          shards.filter((s) => s !== mine),
          C,
          lengths,
        ),
      );
      synced.set(`${native} ${label(c)}`, got);
      assert.deepEqual(lengths, [2 * C + 1, 4 * C + 1], 'the exchanges: [R, Σx, Σ(x - m)² + (Σx)²/R], [R, Σdy, Σdy·(x - mean), dmean, dvariance]');
      const scale = (a: ArrayLike<number>) => Math.max(1, ...Array.from(a, Math.abs));
      // Near 1000 the float32 mean's rounding (3e-5) is what y and dx are left with.
      const tol = c.offset ? 1e-4 : 1e-5;
      assertClose(got.mean, want.mean, 1e-6, 1e-6, `${label(c)} mean`);
      assertClose(got.variance, want.variance, 1e-5, 1e-6, `${label(c)} variance`);
      for (const k of ['y', 'dx'] as const) {
        const rows = rowsOf(c, c.at, want[k]);
        assertClose(got[k], rows, 1e-5, tol * scale(rows), `${label(c)} ${k} (the shard's rows)`);
      }
      // dgamma and dbeta: the shard's own sums, which add up over the shards to the batch's.
      const own = ownParams(mine, C, got.mean, got.variance);
      assertClose(got.dgamma, own.dgamma, 1e-5, 1e-5 * scale(own.dgamma), `${label(c)} dgamma (the shard's own)`);
      assertClose(got.dbeta, own.dbeta, 1e-5, 1e-5 * scale(own.dbeta), `${label(c)} dbeta (the shard's own)`);
      const sumOver = (k: 'dgamma' | 'dbeta') =>
        shards.reduce((a, s) => a.map((x, i) => x + (s === mine ? got : ownParams(s, C, got.mean, got.variance))[k][i]!), new Float64Array(C));
      for (const k of ['dgamma', 'dbeta'] as const) assertClose(sumOver(k), want[k], 1e-4, tol * scale(want[k]), `${label(c)} ${k} summed over the shards`);
    });
  }
}

test('the C loops and the JavaScript ones give the same bits with the sums installed', { skip }, () => {
  for (const c of CASES) {
    const [a, b] = [synced.get(`true ${label(c)}`), synced.get(`false ${label(c)}`)];
    assert.ok(a && b, `${label(c)}: both runs above passed`);
    assert.deepEqual(a, b, label(c));
  }
});

/** A sum that adds `others`' sums for its first `calls` calls, then abandons the exchange (null from then on, as the hook does once a peer died). */
function abandoning(others: Shard[], C: number, calls: number): BatchNormSum {
  const lengths: number[] = [];
  const add = otherWorkers(others, C, lengths);
  let n = 0;
  return (partial) => (++n > calls ? null : add(partial));
}

/** The gradient kernel alone at the mean and variance given, with `sum` installed; dmean and dvariance from the shard, or missing (`weighed` false). */
function gradientKernel(s: Shard, v: Inputs, mean: Float32Array, variance: Float32Array, sum: BatchNormSum | null = null, weighed = true): Float32Array[] {
  setBatchNormSum(sum);
  try {
    return tf.tidy(() => {
      const outs = tf.engine().runKernel<tf.Tensor[]>(
        'MgpuBatchNormTrainGrad',
        {
          x: tf.tensor4d(s.x, s.shape),
          dy: tf.tensor4d(s.dy, s.shape),
          gamma: tf.tensor1d(v.gamma),
          mean: tf.tensor1d(mean),
          variance: tf.tensor1d(variance),
          ...(weighed ? { dmean: tf.tensor1d(s.dmean), dvariance: tf.tensor1d(s.dvariance) } : {}),
        },
        { epsilon: EPS },
      );
      return outs.map((t) => t.dataSync() as Float32Array);
    });
  } finally {
    setBatchNormSum(null);
  }
}

for (const native of [true, false]) {
  const mode = native ? 'native' : 'MGPU_NATIVE_CONV=0';
  test(`${mode}: a sum that abandons the exchange (null) leaves the shard's own statistics, and throws nothing`, { skip: native ? skip : false }, async () => {
    await wasm(native);
    const c = CASES[3]!;
    const v = inputs(c.shape, c.offset);
    const shards = shardsOf(c, v);
    const mine = shards[c.at]!;
    const others = shards.filter((s) => s !== mine);
    const C = c.shape[3];
    const local = runShard(mine, v, null);
    // At the forward's exchange: everything is the shard's own, bit for bit.
    assert.deepEqual(runShard(mine, v, abandoning(others, C, 0)), local, 'null at exchange 1');
    // At the gradient's: the forward is the batch's; the gradient is the shard's own at the batch's statistics.
    const full = runShard(mine, v, otherWorkers(others, C, []));
    const late = runShard(mine, v, abandoning(others, C, 1));
    assert.deepEqual([late.y, late.mean, late.variance], [full.y, full.mean, full.variance], 'null at exchange 2: the forward');
    assert.notDeepEqual(late.mean, local.mean, 'the batch mean is not the shard mean');
    const [dx, dgamma, dbeta] = gradientKernel(mine, v, full.mean, full.variance);
    assert.deepEqual([late.dx, late.dgamma, late.dbeta], [dx, dgamma, dbeta], 'null at exchange 2: the gradient');
  });

  test(
    `${mode}: the gradient kernel without dmean and dvariance inputs sends zeros for them and gives what zero ones give`,
    { skip: native ? skip : false },
    async () => {
      await wasm(native);
      const c = CASES[1]!;
      const v = inputs(c.shape, c.offset);
      const shards = shardsOf(c, v);
      const mine = shards[c.at]!;
      const C = c.shape[3];
      const zero: Shard = { ...mine, dmean: new Float32Array(C), dvariance: new Float32Array(C) };
      const { mean, variance } = runShard(
        mine,
        v,
        otherWorkers(
          shards.filter((s) => s !== mine),
          C,
          [],
        ),
      );
      // Other workers adding 10 rows and 0.25 to every sum: what they send does not matter here.
      const others = (sent: Float64Array[]) => (partial: Float64Array) => {
        sent.push(Float64Array.from(partial));
        return partial.map((p, i) => p + (i === 0 ? 10 : 0.25));
      };
      const sentMissing: Float64Array[] = [];
      const sentZero: Float64Array[] = [];
      const missing = gradientKernel(mine, v, mean, variance, others(sentMissing), false);
      const zeros = gradientKernel(zero, v, mean, variance, others(sentZero));
      assert.deepEqual(sentMissing, sentZero, 'the partial sums sent');
      assert.deepEqual(Array.from(sentMissing[0]!.subarray(1 + 2 * C)), new Array(2 * C).fill(0), 'dmean and dvariance: zeros');
      assert.deepEqual(missing, zeros);
    },
  );

  test(`${mode}: a shard without rows sends zeros and gets the batch's mean and variance, zero dgamma and dbeta`, { skip: native ? skip : false }, async () => {
    await wasm(native);
    const c = CASES[2]!;
    const v = inputs(c.shape, c.offset);
    const shards = shardsOf(c, v);
    const C = c.shape[3];
    const empty: Shard = { ...shards[0]!, shape: [0, ...c.shape.slice(1)] as Shape, rows: 0, x: new Float32Array(), dy: new Float32Array() };
    empty.dmean = new Float32Array(C);
    empty.dvariance = new Float32Array(C);
    const sent: Float64Array[] = [];
    const add = otherWorkers(shards, C, []);
    const got = runShard(empty, v, (partial) => (sent.push(Float64Array.from(partial)), add(partial)));
    assert.equal(sent.length, 2);
    for (const p of sent) assert.deepEqual(Array.from(p), new Array(p.length).fill(0), 'an empty shard sends zeros');
    const withRows = runShard(shards[0]!, v, otherWorkers(shards.slice(1), C, []));
    assertClose(got.mean, withRows.mean, 1e-6, 0, "the batch's mean");
    assertClose(got.variance, withRows.variance, 1e-6, 0, "the batch's variance");
    assert.deepEqual([got.y.length, got.dx.length], [0, 0]);
    assert.deepEqual([Array.from(got.dgamma), Array.from(got.dbeta)], [new Array(C).fill(0), new Array(C).fill(0)]);
  });

  test(`${mode}: with no sum installed the kernels give the bits they gave before the sums existed`, { skip: native ? skip : false }, async () => {
    await wasm(native);
    // FNV-1a of the outputs' bytes, recorded from the kernels before the sums were added.
    const GOLDEN: [Shape, number, string, string][] = [
      [[2, 3, 4, 5], 0, '5d4aa03d', '6f0b5b15'],
      [[3, 5, 5, 17], 1000, '606e964e', '0a6a490b'],
    ];
    for (const [shape, offset, forward, backward] of GOLDEN) {
      const v = inputs(shape, offset);
      const got = tf.tidy(() => {
        const x = tf.tensor4d(v.x, shape);
        const [y, mean, variance] = tf
          .engine()
          .runKernel<tf.Tensor[]>('MgpuBatchNormTrain', { x, gamma: tf.tensor1d(v.gamma), beta: tf.tensor1d(v.beta) }, { epsilon: EPS });
        const grads = tf.engine().runKernel<tf.Tensor[]>(
          'MgpuBatchNormTrainGrad',
          {
            x,
            dy: tf.tensor4d(v.dy, shape),
            gamma: tf.tensor1d(v.gamma),
            mean: mean!,
            variance: variance!,
            dmean: tf.tensor1d(v.dmean),
            dvariance: tf.tensor1d(v.dvariance),
          },
          { epsilon: EPS },
        );
        const data = (ts: tf.Tensor[]) => ts.map((t) => t.dataSync() as Float32Array);
        return [fnv(data([y!, mean!, variance!])), fnv(data(grads))];
      });
      assert.deepEqual(got, [forward, backward], `[${shape}]${offset ? ` + ${offset}` : ''}: forward, gradient`);
    }
  });
}

test('a sum that answers with the wrong number of values is an error naming the kernel and both counts', async () => {
  await wasm(false);
  const c = CASES[0]!;
  const v = inputs(c.shape, c.offset);
  const mine = shardsOf(c, v)[0]!;
  assert.throws(
    () => runShard(mine, v, (partial) => partial.subarray(1)),
    /MgpuBatchNormTrain \(wasm, mgpu\): the batch-norm sum over the workers gave 10 values for 11/,
  );
});

function fnv(arrays: Float32Array[]): string {
  let h = 0x811c9dc5;
  for (const a of arrays) for (const b of new Uint8Array(a.buffer, a.byteOffset, a.byteLength)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}
