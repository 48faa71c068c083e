// DepthwiseConv2dNativeBackpropInput on wasm (registerWasmGradKernels) == the cpu backend's, for
// several shapes, channel multipliers, strides and paddings, through tf.grad of depthwiseConv2d
// with respect to its input (what a DepthwiseConv2D layer that is not the first layer needs):
// stride 1 runs on wasm's DepthwiseConv2dNative, other strides in JS. IS_TEST makes tfjs check
// every kernel call for leaked tensors. rtol 1e-4 (+ an atol floor of 1e-5 x max|expected|).
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
  { x: [2, 9, 9, 2], f: [3, 3, 2, 1], s: 3, pad: 'valid' },
  { x: [4, 10, 10, 8], f: [3, 3, 8, 1], s: 1, pad: 'same' },
  { x: [2, 6, 7, 3], f: [3, 2, 3, 2], s: 1, pad: 'valid' },
  // Stride 1 with a pad larger than the filter: not the XNNPACK path, the JS one.
  {
    x: [1, 5, 5, 2],
    f: [3, 3, 2, 1],
    s: 1,
    pad: [
      [0, 0],
      [3, 1],
      [0, 4],
      [0, 0],
    ],
  },
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

function viaGrad(c: Case, fv: Float32Array, dyv: Float32Array | null, rand: () => number): { dx: Float32Array; dy: Float32Array } {
  return tf.tidy(() => {
    const f = tf.tensor4d(fv, c.f);
    const outShape = tf.depthwiseConv2d(tf.zeros<tf.Rank.R4>(c.x), f, c.s, c.pad).shape;
    const dy = tf.tensor(dyv ?? randomUniform(rand, size(outShape)), outShape);
    const g = tf.grad((x: tf.Tensor) => tf.sum(tf.mul(tf.depthwiseConv2d(x as tf.Tensor4D, f, c.s, c.pad as 'same'), dy)));
    return { dx: g(tf.zeros(c.x)).dataSync() as Float32Array, dy: dy.dataSync() as Float32Array };
  });
}

for (const c of CASES) {
  test(`DepthwiseConv2dNativeBackpropInput wasm == cpu through tf.grad(depthwiseConv2d): ${label(c)}`, async () => {
    const rand = seededRandom(size(c.x) * 13 + size(c.f));
    const fv = randomUniform(rand, size(c.f));
    await tf.setBackend('cpu');
    const cpu = viaGrad(c, fv, null, rand);
    await tf.setBackend('wasm');
    const wasm = viaGrad(c, fv, cpu.dy, rand);
    assert.equal(tf.getBackend(), 'wasm');
    close(wasm.dx, cpu.dx, label(c));
  });
}

test('DepthwiseConv2dNativeBackpropInput on wasm refuses dilations other than 1', async () => {
  await tf.setBackend('wasm');
  const f = tf.zeros([3, 3, 2, 1]);
  const dy = tf.zeros([1, 2, 2, 2]);
  assert.throws(
    () => tf.engine().runKernel('DepthwiseConv2dNativeBackpropInput', { dy, filter: f }, { strides: 1, pad: 'valid', dilations: 2, inputShape: [1, 6, 6, 2] }),
    /DepthwiseConv2dNativeBackpropInput \(wasm, mgpu\): dilations \[2, 2\] are not supported/,
  );
  tf.dispose([f, dy]);
});
