// Conv2DBackpropFilter on wasm (registerWasmGradKernels) == the cpu backend's, for several
// shapes, strides and paddings: through tf.grad of conv2d (the path training takes), through the
// kernel directly (NCHW, dimRoundingMode), and with the patch matrix forced into many chunks.
// Tolerance: rtol 1e-4, plus an atol floor of 1e-5 x max|expected| for entries that cancel to
// near 0 (wasm's matmul sums in float32, the cpu backend in float64).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';
import { registerWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { conv2DBackpropFilter } from '../../src/worker/wasm-kernels/conv2d-backprop-filter.ts';
import { assertClose, randomUniform, seededRandom } from '../helpers/close.ts';

tf.env().set('IS_TEST', true);

type Pad = 'valid' | 'same' | number | [[number, number], [number, number], [number, number], [number, number]];
interface Case {
  x: [number, number, number, number];
  f: [number, number, number, number];
  s: number | [number, number];
  pad: Pad;
  round?: 'floor' | 'ceil' | 'round';
}

const CASES: Case[] = [
  { x: [2, 7, 8, 3], f: [3, 3, 3, 4], s: 1, pad: 'valid' },
  { x: [2, 7, 8, 3], f: [3, 3, 3, 4], s: 2, pad: 'same' },
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
  { x: [2, 8, 8, 3], f: [1, 1, 3, 5], s: 2, pad: 'valid' },
  { x: [2, 7, 7, 2], f: [3, 3, 2, 3], s: 2, pad: 1 },
  { x: [1, 4, 4, 2], f: [4, 4, 2, 2], s: 1, pad: 'valid' },
  { x: [4, 12, 12, 1], f: [3, 3, 1, 8], s: 1, pad: 'valid' },
  { x: [2, 8, 8, 2], f: [3, 3, 2, 2], s: 2, pad: 0, round: 'ceil' },
];

const label = (c: Case) => `x [${c.x}] f [${c.f}] strides ${JSON.stringify(c.s)} pad ${JSON.stringify(c.pad)}${c.round ? ` ${c.round}` : ''}`;
const size = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

function close(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string): void {
  let max = 0;
  for (let i = 0; i < expected.length; i++) max = Math.max(max, Math.abs(expected[i]!));
  assertClose(actual, expected, 1e-4, 1e-5 * max, what);
}

async function onBackend<T>(name: 'cpu' | 'wasm', fn: () => T): Promise<T> {
  assert.ok(await tf.setBackend(name), `setBackend(${name})`);
  return fn();
}

await tf.setBackend('wasm');
registerWasmGradKernels(tf);

/** The filter gradient of sum(conv2d(x, f) * dy): exactly Conv2DBackpropFilter(x, dy). */
function viaGrad(c: Case, xv: Float32Array, dyv: Float32Array | null, rand: () => number): { dw: Float32Array; dy: Float32Array } {
  return tf.tidy(() => {
    const x = tf.tensor4d(xv, c.x);
    const outShape = tf.conv2d(x, tf.zeros<tf.Rank.R4>(c.f), c.s, c.pad, 'NHWC', 1, c.round).shape;
    const dy = tf.tensor(dyv ?? randomUniform(rand, size(outShape)), outShape);
    const g = tf.grad((f: tf.Tensor) => tf.sum(tf.mul(tf.conv2d(x, f as tf.Tensor4D, c.s, c.pad as 'same', 'NHWC', 1, c.round), dy)));
    return { dw: g(tf.zeros(c.f)).dataSync() as Float32Array, dy: dy.dataSync() as Float32Array };
  });
}

for (const c of CASES) {
  test(`Conv2DBackpropFilter wasm == cpu through tf.grad(conv2d): ${label(c)}`, async () => {
    const rand = seededRandom(size(c.x) * 31 + size(c.f));
    const xv = randomUniform(rand, size(c.x));
    const cpu = await onBackend('cpu', () => viaGrad(c, xv, null, rand));
    const wasm = await onBackend('wasm', () => viaGrad(c, xv, cpu.dy, rand));
    assert.equal(tf.getBackend(), 'wasm');
    close(wasm.dw, cpu.dw, label(c));
  });
}

function runKernel(xShape: number[], xv: Float32Array, dyShape: number[], dyv: Float32Array, attrs: Record<string, unknown>): Float32Array {
  return tf.tidy(() => {
    const out = tf.engine().runKernel<tf.Tensor>('Conv2DBackpropFilter', { x: tf.tensor(xv, xShape), dy: tf.tensor(dyv, dyShape) }, attrs as never);
    return out.dataSync() as Float32Array;
  });
}

test('Conv2DBackpropFilter wasm == cpu for NCHW inputs (explicit padding too)', async () => {
  const rand = seededRandom(7);
  for (const pad of [
    'same',
    'valid',
    [
      [0, 0],
      [0, 0],
      [2, 0],
      [1, 1],
    ],
  ] as const) {
    const xShape = [2, 3, 7, 8];
    const filterShape = [3, 3, 3, 4];
    const info = tf.backend_util.computeConv2DInfo(xShape as never, filterShape as never, [2, 1], 1, pad as never, undefined, false, 'channelsFirst');
    const dyShape = [2, 4, info.outHeight, info.outWidth];
    const xv = randomUniform(rand, size(xShape));
    const dyv = randomUniform(rand, size(dyShape));
    const attrs = { strides: [2, 1], pad, dataFormat: 'NCHW', filterShape };
    const cpu = await onBackend('cpu', () => runKernel(xShape, xv, dyShape, dyv, attrs));
    const wasm = await onBackend('wasm', () => runKernel(xShape, xv, dyShape, dyv, attrs));
    close(wasm, cpu, `NCHW pad ${JSON.stringify(pad)}`);
  }
});

test('Conv2DBackpropFilter wasm == cpu when the patch matrix is split into many chunks', async () => {
  const rand = seededRandom(11);
  const xShape = [3, 9, 10, 4];
  const filterShape: [number, number, number, number] = [3, 3, 4, 5];
  const attrs = { strides: [2, 2] as [number, number], pad: 'same' as const, dataFormat: 'NHWC' as const, filterShape };
  const dyShape = [3, 5, 5, 5];
  const xv = randomUniform(rand, size(xShape));
  const dyv = randomUniform(rand, size(dyShape));
  const cpu = await onBackend('cpu', () => runKernel(xShape, xv, dyShape, dyv, attrs));
  await tf.setBackend('wasm');
  const backend = tf.backend() as BackendWasm;
  // K = 36 floats per output position: 100 floats per chunk = 2 positions, 38 chunks; 1000 = 27.
  for (const patchFloats of [1, 100, 1000]) {
    const got = tf.tidy(() => {
      const x = tf.tensor(xv, xShape);
      const dy = tf.tensor(dyv, dyShape);
      const info = conv2DBackpropFilter(tf, { inputs: { x, dy }, backend, attrs }, patchFloats);
      return tf.engine().makeTensorFromTensorInfo(info, backend).dataSync() as Float32Array;
    });
    close(got, cpu, `patchFloats ${patchFloats}`);
  }
});

test('Conv2DBackpropFilter on wasm frees every intermediate tensor', async () => {
  await tf.setBackend('wasm');
  const x = tf.randomNormal([2, 6, 6, 3]);
  const dy = tf.randomNormal([2, 3, 3, 4]);
  const attrs = { strides: 2, pad: 'same', dataFormat: 'NHWC', filterShape: [3, 3, 3, 4] };
  const run = () => tf.engine().runKernel<tf.Tensor>('Conv2DBackpropFilter', { x, dy }, attrs);
  run().dispose(); // warm-up
  const before = tf.memory().numTensors;
  const dataIds = (tf.backend() as BackendWasm).numDataIds();
  for (let i = 0; i < 3; i++) run().dispose();
  assert.equal(tf.memory().numTensors, before);
  assert.equal((tf.backend() as BackendWasm).numDataIds(), dataIds);
  tf.dispose([x, dy]);
});
