// DepthwiseConv2dNativeBackpropFilter on wasm (registerWasmGradKernels) == the cpu backend's, for
// several shapes, channel multipliers, strides and paddings, through tf.grad of depthwiseConv2d
// (the path DepthwiseConv2D / SeparableConv2D layers take). rtol 1e-4 (+ an atol floor of 1e-5 x
// max|expected| for entries that cancel to near 0); both backends sum in float64 here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { registerWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { assertClose, randomUniform, seededRandom } from '../helpers/close.ts';

tf.env().set('IS_TEST', true);

type Pad = 'valid' | 'same' | number | [[number, number], [number, number], [number, number], [number, number]];
interface Case {
  x: [number, number, number, number];
  f: [number, number, number, number];
  s: number | [number, number];
  pad: Pad;
}

const CASES: Case[] = [
  { x: [2, 7, 8, 3], f: [3, 3, 3, 1], s: 1, pad: 'valid' },
  { x: [2, 7, 8, 3], f: [3, 3, 3, 2], s: 2, pad: 'same' },
  { x: [1, 5, 5, 2], f: [2, 2, 2, 3], s: 2, pad: 'valid' },
  { x: [3, 9, 6, 1], f: [5, 3, 1, 2], s: [2, 3], pad: 'same' },
  {
    x: [2, 6, 6, 2],
    f: [3, 3, 2, 2],
    s: 1,
    pad: [
      [0, 0],
      [1, 2],
      [0, 1],
      [0, 0],
    ],
  },
  { x: [2, 7, 7, 4], f: [3, 3, 4, 1], s: 2, pad: 1 },
  { x: [2, 8, 8, 5], f: [1, 1, 5, 2], s: 2, pad: 'valid' },
  { x: [4, 10, 10, 8], f: [3, 3, 8, 1], s: 1, pad: 'same' },
];

const label = (c: Case) => `x [${c.x}] f [${c.f}] strides ${JSON.stringify(c.s)} pad ${JSON.stringify(c.pad)}`;
const size = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

function close(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string): void {
  let max = 0;
  for (let i = 0; i < expected.length; i++) max = Math.max(max, Math.abs(expected[i]!));
  assertClose(actual, expected, 1e-4, 1e-5 * max, what);
}

await tf.setBackend('wasm');
registerWasmGradKernels(tf);

function viaGrad(c: Case, xv: Float32Array, dyv: Float32Array | null, rand: () => number): { dw: Float32Array; dy: Float32Array } {
  return tf.tidy(() => {
    const x = tf.tensor4d(xv, c.x);
    const outShape = tf.depthwiseConv2d(x, tf.zeros<tf.Rank.R4>(c.f), c.s, c.pad).shape;
    const dy = tf.tensor(dyv ?? randomUniform(rand, size(outShape)), outShape);
    const g = tf.grad((f: tf.Tensor) => tf.sum(tf.mul(tf.depthwiseConv2d(x, f as tf.Tensor4D, c.s, c.pad as 'same'), dy)));
    return { dw: g(tf.zeros(c.f)).dataSync() as Float32Array, dy: dy.dataSync() as Float32Array };
  });
}

for (const c of CASES) {
  test(`DepthwiseConv2dNativeBackpropFilter wasm == cpu through tf.grad(depthwiseConv2d): ${label(c)}`, async () => {
    const rand = seededRandom(size(c.x) * 17 + size(c.f));
    const xv = randomUniform(rand, size(c.x));
    await tf.setBackend('cpu');
    const cpu = viaGrad(c, xv, null, rand);
    await tf.setBackend('wasm');
    const wasm = viaGrad(c, xv, cpu.dy, rand);
    assert.equal(tf.getBackend(), 'wasm');
    close(wasm.dw, cpu.dw, label(c));
  });
}

test('DepthwiseConv2dNativeBackpropFilter on wasm refuses dilations other than 1', async () => {
  await tf.setBackend('wasm');
  const x = tf.zeros([1, 6, 6, 2]);
  const dy = tf.zeros([1, 2, 2, 2]);
  assert.throws(
    () => tf.engine().runKernel('DepthwiseConv2dNativeBackpropFilter', { x, dy }, { strides: 1, pad: 'valid', dilations: [2, 2], filterShape: [3, 3, 2, 1] }),
    /DepthwiseConv2dNativeBackpropFilter \(wasm, mgpu\): dilations \[2, 2\] are not supported/,
  );
  tf.dispose([x, dy]);
});
