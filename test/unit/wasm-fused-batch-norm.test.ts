// BatchNormalization in training on wasm, fused (src/worker/fused-batch-norm.ts: one fused
// kernel forward, one for the gradient, src/worker/wasm-kernels/batch-norm-train.ts and
// native/src/batch-norm.c) gives what tfjs's own op-by-op layer gives on the cpu backend: the
// output, dx, dgamma, dbeta, and the moving mean and variance after the step, for NHWC shapes
// with C not a multiple of any vector width, one row (H·W·N = 1: variance 0), and a large mean
// (where a one-pass E[x²] - mean² in float32 would cancel; also checked against float64). Both
// with the addon's C loops and with MGPU_NATIVE_CONV=0 (the JavaScript ones), which also agree
// with each other bit for bit. A small conv net trained a few steps fused ends at the weights of
// the same net trained by tfjs's own call, and a saved model says BatchNormalization and loads
// in plain tfjs (tfjs's own class), predicting the same and fine-tuning. A network by name (the
// workers' builder) runs one fused call per BatchNormalization each way.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { buildNet } from '../../src/nets/nets-table.ts';
import { fuseBatchNormalization, unfuseBatchNormalization } from '../../src/worker/fused-batch-norm.ts';
import { batchNormTrainGradJs, batchNormTrainJs } from '../../src/worker/wasm-kernels/batch-norm-train.ts';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { nativeConv, resetNativeConv } from '../../src/worker/wasm-kernels/native-conv.ts';
import { assertClose, randomUniform, seededRandom } from '../helpers/close.ts';
import { nativeSkip } from '../helpers/native.ts';

tf.env().set('IS_TEST', true);
const skip = nativeSkip(nativeConv().addon ? false : `the convolution addon is not in use: ${nativeConv().reason}`);
const EPS = 1e-5;
const MOMENTUM = 0.9;

interface Case {
  shape: [number, number, number, number];
  offset?: number; // added to x: a large mean
}
const CASES: Case[] = [
  { shape: [2, 3, 4, 5] },
  { shape: [3, 5, 5, 17] }, // C = 17: a remainder after any vector width
  { shape: [1, 1, 1, 7] }, // one row: variance 0
  { shape: [4, 4, 4, 64] },
  { shape: [2, 6, 6, 3], offset: 1000 },
];
const label = (c: Case) => `[${c.shape}]${c.offset ? ` + ${c.offset}` : ''}`;

interface Inputs {
  x: Float32Array;
  dy: Float32Array;
  gamma: Float32Array;
  beta: Float32Array;
  movingMean: Float32Array;
  movingVariance: Float32Array;
}
function inputs(c: Case): Inputs {
  const rand = seededRandom(c.shape.reduce((a, v) => a * 31 + v, 11) + (c.offset ?? 0));
  const n = c.shape.reduce((a, b) => a * b, 1);
  const C = c.shape[3];
  const x = randomUniform(rand, n, -2, 3);
  if (c.offset) for (let i = 0; i < n; i++) x[i] = Math.fround(x[i]! + c.offset);
  return {
    x,
    dy: randomUniform(rand, n),
    gamma: randomUniform(rand, C, 0.5, 1.5),
    beta: randomUniform(rand, C),
    movingMean: randomUniform(rand, C),
    movingVariance: randomUniform(rand, C, 0.5, 2),
  };
}

interface Result {
  y: Float32Array;
  dx: Float32Array;
  dgamma: Float32Array;
  dbeta: Float32Array;
  movingMean: Float32Array;
  movingVariance: Float32Array;
  kernels: string[];
}

/** One training-mode call of `layer` on the current backend: y, the gradients of sum(y · dy), the moving statistics after it, the kernels it ran. */
async function step(layer: tf.layers.Layer, c: Case, v: Inputs): Promise<Result> {
  const C = c.shape[3];
  const x = tf.variable(tf.tensor4d(v.x, c.shape));
  const dy = tf.tensor4d(v.dy, c.shape);
  layer.apply(tf.zeros(c.shape)); // builds it (inference: nothing moves)
  layer.setWeights([tf.tensor1d(v.gamma), tf.tensor1d(v.beta), tf.tensor1d(v.movingMean), tf.tensor1d(v.movingVariance)]);
  const [gamma, beta] = layer.trainableWeights.map((w) => w.read() as tf.Variable);
  let y: Float32Array = new Float32Array();
  let grads: Record<string, tf.Tensor> = {};
  const profile = await tf.profile(() => {
    grads = tf.variableGrads(() => {
      const out = layer.apply(x, { training: true }) as tf.Tensor;
      y = out.dataSync() as Float32Array;
      return tf.sum(tf.mul(out, dy));
    }, [x, gamma!, beta!]).grads;
  });
  const w = layer.getWeights();
  const data = (t: tf.Tensor | undefined) => t!.dataSync() as Float32Array;
  const r: Result = {
    y,
    dx: data(grads[x.name]),
    dgamma: data(grads[gamma!.name]),
    dbeta: data(grads[beta!.name]),
    movingMean: data(w[2]),
    movingVariance: data(w[3]),
    kernels: profile.kernels.map((k) => k.name),
  };
  assert.equal(r.dgamma.length, C);
  tf.dispose([x, dy, ...Object.values(grads)]);
  return r;
}

/** tfjs's layer, as the networks configure it: its call is fused while fuseBatchNormalization is in force (as in a worker). */
const bnLayer = () => tf.layers.batchNormalization({ epsilon: EPS, momentum: MOMENTUM });
fuseBatchNormalization(tf);

/** `run` with tfjs's own BatchNormalization call, the fused one put back after. */
function unfused<T>(run: () => T): T {
  unfuseBatchNormalization(tf);
  try {
    return run();
  } finally {
    fuseBatchNormalization(tf);
  }
}

/** The forward in float64 (mean, biased variance, y), to check the large-mean case against something exact. */
function float64Forward(v: Inputs, C: number): { mean: number[]; variance: number[]; y: Float64Array } {
  const R = v.x.length / C;
  const mean = Array.from({ length: C }, (_, c) => {
    let s = 0;
    for (let r = 0; r < R; r++) s += v.x[r * C + c]!;
    return s / R;
  });
  const variance = mean.map((m, c) => {
    let s = 0;
    for (let r = 0; r < R; r++) s += (v.x[r * C + c]! - m) ** 2;
    return s / R;
  });
  const y = Float64Array.from(v.x, (xi, i) => ((xi - mean[i % C]!) / Math.sqrt(variance[i % C]! + EPS)) * v.gamma[i % C]! + v.beta[i % C]!);
  return { mean, variance, y };
}

function useNative(on: boolean): void {
  unregisterWasmGradKernels(tf);
  if (on) delete process.env.MGPU_NATIVE_CONV;
  else process.env.MGPU_NATIVE_CONV = '0';
  resetNativeConv();
  registerWasmGradKernels(tf);
}

after(() => {
  useNative(true);
  unregisterWasmGradKernels(tf);
  unfuseBatchNormalization(tf);
});

const expected = new Map<Case, Result>();
async function reference(c: Case): Promise<Result> {
  if (!expected.has(c)) {
    await tf.setBackend('cpu');
    expected.set(c, await unfused(() => step(bnLayer(), c, inputs(c))));
  }
  return expected.get(c)!;
}

for (const native of [true, false]) {
  for (const c of CASES) {
    test(
      `${native ? 'native' : 'MGPU_NATIVE_CONV=0'}: fused batch norm ${label(c)} == tfjs's layer on cpu (y, dx, dgamma, dbeta, moving mean and variance)`,
      { skip: native ? skip : false },
      async () => {
        const want = await reference(c);
        await tf.setBackend('wasm');
        useNative(native);
        const v = inputs(c);
        const got = await step(bnLayer(), c, v);
        // The fused kernels ran, and none of tfjs's batch-norm arithmetic.
        assert.ok(got.kernels.includes('MgpuBatchNormTrain') && got.kernels.includes('MgpuBatchNormTrainGrad'), `kernels: ${got.kernels}`);
        for (const k of ['FusedBatchNorm', 'Square', 'RealDiv', 'Mean']) assert.ok(!got.kernels.includes(k), `${k} ran: ${got.kernels}`);
        // tfjs's float32 mean of values near 1000 is off by ~1e-3 of a standard deviation: the
        // large-mean case is held to float64 tightly, and to tfjs as far as tfjs is right.
        const tol = c.offset ? 2e-3 : 2e-5;
        const rows = v.x.length / c.shape[3];
        for (const k of ['y', 'dx', 'dgamma', 'dbeta', 'movingMean', 'movingVariance'] as const) {
          // One row: y is beta whatever x is, so dx is exactly 0; tfjs's is its rounding times
          // 1/sqrt(eps) (3e-5 here): held to the exact answer instead (-0 or 0).
          if (k === 'dx' && rows === 1) assert.deepEqual(Array.from(got.dx, Math.abs), new Array(got.dx.length).fill(0), `${label(c)} dx`);
          else assertClose(got[k], want[k], 1e-4, tol * Math.max(1, ...Array.from(want[k], Math.abs)), `${label(c)} ${k}`);
        }
        const exact = float64Forward(v, c.shape[3]);
        // y from a float32 mean: near 1000 its rounding (3e-5) is what is left.
        assertClose(got.y, exact.y, 1e-5, c.offset ? 1e-4 : 1e-5, `${label(c)} y against float64`);
        const moved = (m: number[], old: Float32Array) => m.map((b, i) => old[i]! - (old[i]! - b) * (1 - MOMENTUM));
        assertClose(got.movingMean, moved(exact.mean, v.movingMean), 1e-6, 1e-6, `${label(c)} moving mean against float64`);
        assertClose(got.movingVariance, moved(exact.variance, v.movingVariance), 1e-6, 1e-6, `${label(c)} moving variance (biased) against float64`);
      },
    );
  }
}

test('the C loops and the JavaScript ones agree bit for bit (forward, and the gradient with dmean and dvariance)', { skip }, () => {
  useNative(true);
  const addon = nativeConv().addon!;
  for (const c of CASES) {
    const v = inputs(c);
    const C = c.shape[3];
    const n = v.x.length;
    const out = () => ({ y: new Float32Array(n), mean: new Float32Array(C), variance: new Float32Array(C) });
    const [a, b] = [out(), out()];
    addon.batchNormTrain(v.x, v.gamma, v.beta, a.y, a.mean, a.variance, EPS);
    batchNormTrainJs(v.x, v.gamma, v.beta, b.y, b.mean, b.variance, EPS);
    assert.deepEqual(a, b, `${label(c)} forward`);
    const rand = seededRandom(C);
    for (const extra of [null, { dmean: randomUniform(rand, C), dvariance: randomUniform(rand, C) }]) {
      const grad = () => ({ dx: new Float32Array(n), dgamma: new Float32Array(C), dbeta: new Float32Array(C) });
      const [g, h] = [grad(), grad()];
      const dm = extra?.dmean ?? null;
      const dv = extra?.dvariance ?? null;
      addon.batchNormTrainGrad(v.x, v.dy, v.gamma, a.mean, a.variance, dm, dv, g.dx, g.dgamma, g.dbeta, EPS);
      batchNormTrainGradJs(v.x, v.dy, v.gamma, b.mean, b.variance, dm, dv, h.dx, h.dgamma, h.dbeta, EPS);
      assert.deepEqual(g, h, `${label(c)} gradient${extra ? ' with dmean, dvariance' : ''}`);
    }
  }
});

test('the gradient reaching the mean and variance outputs: dx of sum(y·dy) + sum(mean·a) + sum(variance·b) == tfjs on cpu', async () => {
  const c: Case = { shape: [2, 3, 3, 6] };
  const v = inputs(c);
  const rand = seededRandom(5);
  const a = randomUniform(rand, 6);
  const b = randomUniform(rand, 6);
  const loss = (y: tf.Tensor, mean: tf.Tensor, variance: tf.Tensor) =>
    tf.addN([tf.sum(tf.mul(y, tf.tensor4d(v.dy, c.shape))), tf.sum(tf.mul(mean, tf.tensor1d(a))), tf.sum(tf.mul(variance, tf.tensor1d(b)))]);
  const as1d = (t: tf.Tensor) => t as tf.Tensor1D;
  const args = () => [tf.tensor4d(v.x, c.shape), tf.tensor1d(v.gamma), tf.tensor1d(v.beta)] as const;
  await tf.setBackend('cpu');
  const want = tf
    .grads((x, g, be) => {
      const m = tf.moments(x, [0, 1, 2]);
      return loss(tf.batchNorm4d(x as tf.Tensor4D, as1d(m.mean), as1d(m.variance), as1d(be), as1d(g), EPS), m.mean, m.variance);
    })([...args()])
    .map((t) => t.dataSync());
  await tf.setBackend('wasm');
  useNative(true);
  const got = tf
    .grads((x, g, be) => {
      const [y, mean, variance] = tf.engine().runKernel<tf.Tensor[]>('MgpuBatchNormTrain', { x, gamma: g, beta: be }, { epsilon: EPS });
      return loss(y!, mean!, variance!);
    })([...args()])
    .map((t) => t.dataSync());
  ['dx', 'dgamma', 'dbeta'].forEach((k, i) => assertClose(got[i]!, want[i]!, 1e-4, 1e-5, k));
});

test('on a backend without the kernels (cpu) the layer is tfjs own, value for value', async () => {
  const c = CASES[1]!;
  await tf.setBackend('cpu');
  const got = await step(bnLayer(), c, inputs(c));
  const want = await reference(c);
  assert.ok(got.kernels.includes('FusedBatchNorm') && !got.kernels.includes('MgpuBatchNormTrain'), `kernels: ${got.kernels}`);
  for (const k of ['y', 'dx', 'dgamma', 'dbeta', 'movingMean', 'movingVariance'] as const) assert.deepEqual(got[k], want[k], k);
});

/** conv → BN → relu → conv (stride 2) → BN → relu → pool → softmax, with `bn` making each batch norm. */
function smallNet(bn: (name: string) => tf.layers.Layer): tf.LayersModel {
  const input = tf.input({ shape: [8, 8, 3] });
  let y = tf.layers.conv2d({ filters: 6, kernelSize: 3, padding: 'same', useBias: false, name: 'c1' }).apply(input) as tf.SymbolicTensor;
  y = tf.layers.activation({ activation: 'relu' }).apply(bn('bn1').apply(y)) as tf.SymbolicTensor;
  y = tf.layers.conv2d({ filters: 10, kernelSize: 3, strides: 2, padding: 'same', useBias: false, name: 'c2' }).apply(y) as tf.SymbolicTensor;
  y = tf.layers.activation({ activation: 'relu' }).apply(bn('bn2').apply(y)) as tf.SymbolicTensor;
  y = tf.layers.globalAveragePooling2d({}).apply(y) as tf.SymbolicTensor;
  return tf.model({ inputs: input, outputs: tf.layers.dense({ units: 4, activation: 'softmax', name: 'fc' }).apply(y) as tf.SymbolicTensor });
}

function trainSteps(model: tf.LayersModel, steps: number): Float32Array {
  const rand = seededRandom(99);
  const opt = tf.train.momentum(0.05, 0.9);
  for (let k = 0; k < steps; k++) {
    tf.tidy(() => {
      const x = tf.tensor4d(randomUniform(rand, 6 * 8 * 8 * 3), [6, 8, 8, 3]);
      const labels = tf.oneHot(
        Int32Array.from({ length: 6 }, () => Math.floor(rand() * 4)),
        4,
      );
      opt.minimize(() => tf.mean<tf.Scalar>(tf.metrics.categoricalCrossentropy(labels, model.apply(x, { training: true }) as tf.Tensor)));
    });
  }
  opt.dispose();
  const flat = model.getWeights().map((w) => w.dataSync() as Float32Array);
  return Float32Array.from(flat.flatMap((a) => Array.from(a)));
}

test("a small conv net trained 4 steps fused ends at the weights of the same net trained by tfjs's own call (wasm, parity tolerance)", async () => {
  await tf.setBackend('wasm');
  useNative(true);
  const named = (name: string) => tf.layers.batchNormalization({ epsilon: EPS, momentum: MOMENTUM, name });
  const fused = smallNet(named);
  const plain = smallNet(named);
  plain.setWeights(fused.getWeights());
  const initial = Float32Array.from(fused.getWeights().flatMap((w) => Array.from(w.dataSync())));
  const a = trainSteps(fused, 4);
  const b = unfused(() => trainSteps(plain, 4));
  let moved = 0;
  for (let i = 0; i < b.length; i++) moved = Math.max(moved, Math.abs(b[i]! - initial[i]!));
  assert.ok(moved > 1e-2, `the weights moved only ${moved}`);
  // The wasm backend's parity tolerance (test/integration/integration-wasm.test.ts).
  assertClose(a, b, 1e-4, 1e-5, 'weights and moving statistics after 4 steps');
  fused.dispose();
  plain.dispose();
});

test('a model trained fused and saved says BatchNormalization, loads in plain tfjs, predicts the same and fine-tunes unfused', async () => {
  await tf.setBackend('wasm');
  useNative(true);
  const model = smallNet((name) => tf.layers.batchNormalization({ epsilon: EPS, momentum: MOMENTUM, name }));
  trainSteps(model, 1);
  let saved: tf.io.ModelArtifacts | null = null;
  await model.save(
    tf.io.withSaveHandler(async (artifacts) => {
      saved = artifacts;
      return { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON' } };
    }),
  );
  const topology = JSON.stringify(saved!.modelTopology);
  assert.equal((topology.match(/"class_name":"BatchNormalization"/g) ?? []).length, 2);
  assert.ok(!/Mgpu/.test(topology), 'model.json names no class of ours');
  unfuseBatchNormalization(tf); // plain tfjs from here
  const loaded = await tf.loadLayersModel(tf.io.fromMemory(saved!));
  const TfjsBatchNormalization = Object.getPrototypeOf(bnLayer()).constructor;
  const bns = loaded.layers.filter((l) => l.getClassName() === 'BatchNormalization');
  assert.equal(bns.length, 2);
  for (const l of bns) assert.equal(Object.getPrototypeOf(l).constructor, TfjsBatchNormalization);
  const x = tf.tensor4d(randomUniform(seededRandom(3), 2 * 8 * 8 * 3), [2, 8, 8, 3]);
  assert.deepEqual((loaded.predict(x) as tf.Tensor).dataSync(), (model.predict(x) as tf.Tensor).dataSync());
  const before = loaded.getWeights().map((w) => w.dataSync().slice());
  loaded.compile({ optimizer: tf.train.sgd(0.1), loss: 'categoricalCrossentropy' });
  await loaded.trainOnBatch(x, tf.oneHot([1, 2], 4));
  const after = loaded.getWeights().map((w) => w.dataSync());
  assert.ok(
    after.some((w, i) => w.some((v, j) => v !== before[i]![j])),
    'fine-tuning the loaded model moved its weights',
  );
  fuseBatchNormalization(tf);
  model.dispose();
  loaded.dispose();
});

test("a network by name (mobilenet-v2 at width 0.35, the workers' builder) trains on the fused kernels on wasm, none of tfjs's batch-norm arithmetic", async () => {
  await tf.setBackend('wasm');
  useNative(true);
  const model = buildNet(tf, 'mobilenet-v2', { classes: 3, inputShape: [32, 32, 3], width: 0.35 });
  const x = tf.tensor4d(randomUniform(seededRandom(8), 2 * 32 * 32 * 3), [2, 32, 32, 3]);
  const opt = tf.train.sgd(0.01);
  const profile = await tf.profile(() => {
    opt.minimize(() => tf.sum<tf.Scalar>(model.apply(x, { training: true }) as tf.Tensor));
  });
  const calls = (name: string) => profile.kernels.filter((k) => k.name === name).length;
  const bns = model.layers.filter((l) => l.getClassName() === 'BatchNormalization').length;
  assert.ok(bns > 10, `${bns} BatchNormalization layers`);
  assert.equal(calls('MgpuBatchNormTrain'), bns);
  assert.equal(calls('MgpuBatchNormTrainGrad'), bns);
  assert.equal(calls('FusedBatchNorm'), 0);
  opt.dispose();
  model.dispose();
});
