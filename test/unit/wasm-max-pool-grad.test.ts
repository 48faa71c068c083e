// MaxPoolGrad on wasm: tfjs-backend-wasm 4.22's own kernel is wrong for windows whose values are
// all <= 0 (its running max starts at FLT_MIN, the smallest positive float); registerWasmGradKernels
// replaces it. Checked against the cpu backend and a plain reference, for several pool sizes,
// strides and paddings, on inputs of both signs; and the replacement can be switched off/undone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { nativeConv } from '../../src/worker/wasm-kernels/native-conv.ts';
import { ELEMENTWISE } from '../helpers/wasm-elementwise-kernels.ts';

/** The other kernels registerWasmGradKernels replaces: Tile, Identity, Cast, Sum, Mean, and the convolutions where their addon is built. */
const ALSO_REPLACED = ['Tile', 'Slice', 'Identity', 'Cast', 'Sum', 'Mean', ...(nativeConv().addon ? ['Conv2D', 'FusedConv2D', ...ELEMENTWISE] : [])];
import { assertClose, randomUniform, seededRandom } from '../helpers/close.ts';

tf.env().set('IS_TEST', true);

type Pad = 'valid' | 'same' | number;
interface Case {
  x: [number, number, number, number];
  k: number | [number, number];
  s: number | [number, number];
  pad: Pad;
  lo: number;
  hi: number;
}

const CASES: Case[] = [
  { x: [2, 8, 8, 3], k: 2, s: 2, pad: 'valid', lo: -1, hi: 1 },
  { x: [2, 8, 8, 3], k: 2, s: 2, pad: 'valid', lo: -2, hi: -0.5 }, // all negative
  { x: [2, 7, 9, 4], k: 3, s: 2, pad: 'same', lo: -1, hi: 1 },
  { x: [1, 6, 6, 2], k: 3, s: 1, pad: 'same', lo: -1, hi: 1 }, // overlapping windows
  { x: [3, 5, 7, 1], k: [2, 3], s: [1, 2], pad: 'valid', lo: -1, hi: 0.2 },
  { x: [2, 6, 6, 2], k: 2, s: 2, pad: 1, lo: -1, hi: 1 },
];

const label = (c: Case) => `x [${c.x}] k ${JSON.stringify(c.k)} strides ${JSON.stringify(c.s)} pad ${JSON.stringify(c.pad)} values [${c.lo}, ${c.hi})`;
const size = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

function viaGrad(c: Case, xv: Float32Array, dyv: Float32Array | null, rand: () => number): { dx: Float32Array; dy: Float32Array } {
  return tf.tidy(() => {
    const x = tf.tensor4d(xv, c.x);
    const outShape = tf.maxPool(x, c.k, c.s, c.pad).shape;
    const dy = tf.tensor(dyv ?? randomUniform(rand, size(outShape)), outShape);
    const g = tf.grad((t: tf.Tensor) => tf.sum(tf.mul(tf.maxPool(t as tf.Tensor4D, c.k, c.s, c.pad), dy)));
    return { dx: g(x).dataSync() as Float32Array, dy: dy.dataSync() as Float32Array };
  });
}

await tf.setBackend('wasm');

test("wasm's own MaxPoolGrad is wrong on an all-negative window (why it is replaced)", async () => {
  await tf.setBackend('wasm');
  assert.deepEqual(unregisterWasmGradKernels(tf), []);
  const dx = tf.tidy(() =>
    tf
      .grad((t: tf.Tensor) => tf.sum(tf.maxPool(t as tf.Tensor4D, 2, 2, 'valid')))(tf.tensor4d([-3, -1, -2, -4], [1, 2, 2, 1]))
      .dataSync(),
  );
  // The max is -1 (index 1): its gradient belongs there.
  assert.notDeepEqual(Array.from(dx), [0, 1, 0, 0]);
  const reg = registerWasmGradKernels(tf);
  assert.deepEqual(reg.replaced, ['MaxPoolGrad', 'Conv2DBackpropInput', 'BatchMatMul', ...ALSO_REPLACED]);
  const fixed = tf.tidy(() =>
    tf
      .grad((t: tf.Tensor) => tf.sum(tf.maxPool(t as tf.Tensor4D, 2, 2, 'valid')))(tf.tensor4d([-3, -1, -2, -4], [1, 2, 2, 1]))
      .dataSync(),
  );
  assert.deepEqual(Array.from(fixed), [0, 1, 0, 0]);
});

for (const c of CASES) {
  test(`MaxPoolGrad (replaced) wasm == cpu: ${label(c)}`, async () => {
    const rand = seededRandom(size(c.x) + Math.round(c.lo * 10));
    const xv = randomUniform(rand, size(c.x), c.lo, c.hi);
    await tf.setBackend('cpu');
    const cpu = viaGrad(c, xv, null, rand);
    await tf.setBackend('wasm');
    const wasm = viaGrad(c, xv, cpu.dy, rand);
    assertClose(wasm.dx, cpu.dx, 1e-5, 1e-6, label(c));
  });
}

test("registerWasmGradKernels({ replaceMaxPoolGrad: false }) keeps wasm's own; unregister restores it", async () => {
  await tf.setBackend('wasm');
  const mineFunc = tf.getKernel('MaxPoolGrad', 'wasm').kernelFunc;
  unregisterWasmGradKernels(tf);
  const native = tf.getKernel('MaxPoolGrad', 'wasm');
  assert.ok(native, "wasm's own MaxPoolGrad is back");
  assert.notEqual(native.kernelFunc, mineFunc);
  const reg = registerWasmGradKernels(tf, { replaceMaxPoolGrad: false });
  assert.deepEqual(reg.replaced, ['Conv2DBackpropInput', 'BatchMatMul', ...ALSO_REPLACED]);
  assert.equal(tf.getKernel('MaxPoolGrad', 'wasm').kernelFunc, native.kernelFunc);
  // Idempotent: a second call adds nothing.
  assert.deepEqual(registerWasmGradKernels(tf, { replaceMaxPoolGrad: false }), { added: [], replaced: [] });
});
