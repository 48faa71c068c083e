// Conv2DBackpropInput on wasm: registerWasmGradKernels replaces wasm's own (correct but slow)
// kernel with a BatchMatMul + col2im one. Checked against the cpu backend for several shapes,
// strides and paddings: through tf.grad of conv2d (the path training takes), through the kernel
// directly (NCHW, explicit padding, chunked column matrix), and the replacement can be switched
// off/undone. Tolerance: rtol 1e-4, plus an atol floor of 1e-5 x max|expected| for entries that
// cancel to near 0 (wasm's matmul sums in float32, the cpu backend in float64).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { conv2DBackpropInput } from '../../src/worker/wasm-kernels/conv2d-backprop-input.ts';
import { nativeConv } from '../../src/worker/wasm-kernels/native-conv.ts';
import { ELEMENTWISE } from '../helpers/wasm-elementwise-kernels.ts';
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
  { x: [2, 7, 8, 3], f: [3, 3, 3, 4], s: 1, pad: 'same' },
  { x: [2, 7, 9, 3], f: [3, 3, 3, 4], s: 2, pad: 'same' }, // odd sizes, stride 2 'same'
  { x: [3, 5, 5, 2], f: [2, 2, 2, 3], s: 2, pad: 'same' }, // even filter, odd sizes
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
  { x: [4, 13, 13, 16], f: [3, 3, 16, 32], s: 1, pad: 'valid' }, // the MNIST CNN's conv2
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
const reg = registerWasmGradKernels(tf);

test("registerWasmGradKernels replaces wasm's own Conv2DBackpropInput", () => {
  assert.ok(reg.replaced.includes('Conv2DBackpropInput'), `replaced: ${reg.replaced}`);
});

/** The input gradient of sum(conv2d(x, f) * dy): exactly Conv2DBackpropInput(dy, f). */
function viaGrad(c: Case, fv: Float32Array, dyv: Float32Array | null, rand: () => number): { dx: Float32Array; dy: Float32Array } {
  return tf.tidy(() => {
    const f = tf.tensor4d(fv, c.f);
    const outShape = tf.conv2d(tf.zeros<tf.Rank.R4>(c.x), f, c.s, c.pad, 'NHWC', 1, c.round).shape;
    const dy = tf.tensor(dyv ?? randomUniform(rand, size(outShape)), outShape);
    const g = tf.grad((x: tf.Tensor) => tf.sum(tf.mul(tf.conv2d(x as tf.Tensor4D, f, c.s, c.pad as 'same', 'NHWC', 1, c.round), dy)));
    return { dx: g(tf.zeros(c.x)).dataSync() as Float32Array, dy: dy.dataSync() as Float32Array };
  });
}

for (const c of CASES) {
  test(`Conv2DBackpropInput wasm == cpu through tf.grad(conv2d): ${label(c)}`, async () => {
    const rand = seededRandom(size(c.x) * 17 + size(c.f));
    const fv = randomUniform(rand, size(c.f));
    const cpu = await onBackend('cpu', () => viaGrad(c, fv, null, rand));
    const wasm = await onBackend('wasm', () => viaGrad(c, fv, cpu.dy, rand));
    assert.equal(tf.getBackend(), 'wasm');
    close(wasm.dx, cpu.dx, label(c));
  });
}

function runKernel(dyShape: number[], dyv: Float32Array, fShape: number[], fv: Float32Array, attrs: Record<string, unknown>): Float32Array {
  return tf.tidy(() => {
    const out = tf.engine().runKernel<tf.Tensor>('Conv2DBackpropInput', { dy: tf.tensor(dyv, dyShape), filter: tf.tensor(fv, fShape) }, attrs as never);
    return out.dataSync() as Float32Array;
  });
}

test('Conv2DBackpropInput wasm == cpu for NCHW (explicit padding too)', async () => {
  const rand = seededRandom(11);
  const fShape = [3, 3, 2, 4];
  const fv = randomUniform(rand, size(fShape));
  for (const [pad, dyShape] of [
    ['same', [2, 4, 4, 5]],
    [
      [
        [0, 0],
        [0, 0],
        [1, 0],
        [0, 2],
      ],
      [2, 4, 3, 5],
    ],
  ] as [Pad, number[]][]) {
    const attrs = { strides: [2, 2], pad, dataFormat: 'NCHW', inputShape: [2, 2, 7, 9] };
    const dyv = randomUniform(rand, size(dyShape));
    const cpu = await onBackend('cpu', () => runKernel(dyShape, dyv, fShape, fv, attrs));
    const wasm = await onBackend('wasm', () => runKernel(dyShape, dyv, fShape, fv, attrs));
    close(wasm, cpu, `NCHW pad ${JSON.stringify(pad)}`);
  }
});

test('Conv2DBackpropInput with the column matrix in many chunks == one chunk == cpu', async () => {
  const rand = seededRandom(5);
  const fShape = [3, 3, 3, 4];
  const dyShape = [3, 4, 5, 4];
  const fv = randomUniform(rand, size(fShape));
  const dyv = randomUniform(rand, size(dyShape));
  const attrs = { strides: 2, pad: 'same', dataFormat: 'NHWC', inputShape: [3, 7, 9, 3] };
  const cpu = await onBackend('cpu', () => runKernel(dyShape, dyv, fShape, fv, attrs));
  await tf.setBackend('wasm');
  const backend = tf.backend() as BackendWasm;
  for (const colFloats of [1, 27 * 7, 27 * 13, 1 << 22]) {
    const got = tf.tidy(() => {
      const dy = tf.tensor(dyv, dyShape);
      const filter = tf.tensor(fv, fShape);
      const info = conv2DBackpropInput(tf, { inputs: { dy, filter }, backend, attrs: attrs as never }, colFloats);
      return tf.engine().makeTensorFromTensorInfo(info).dataSync() as Float32Array;
    });
    close(got, cpu, `colFloats ${colFloats}`);
  }
});

test('Conv2DBackpropInput refuses dilations other than 1 and non-float32 inputs', async () => {
  await tf.setBackend('wasm');
  const backend = tf.backend() as BackendWasm;
  tf.tidy(() => {
    const dy = tf.zeros([1, 3, 3, 2]);
    const filter = tf.zeros([3, 3, 1, 2]);
    assert.throws(
      () => conv2DBackpropInput(tf, { inputs: { dy, filter }, backend, attrs: { strides: 1, pad: 'same', inputShape: [1, 3, 3, 1], dilations: 2 } as never }),
      /Conv2DBackpropInput \(wasm, mgpu\): dilations \[2, 2\] are not supported, only 1/,
    );
    assert.throws(
      () =>
        conv2DBackpropInput(tf, {
          inputs: { dy: tf.zeros([1, 3, 3, 2], 'int32'), filter },
          backend,
          attrs: { strides: 1, pad: 'same', inputShape: [1, 3, 3, 1] } as never,
        }),
      /Conv2DBackpropInput \(wasm, mgpu\): dy must be float32, got int32/,
    );
  });
});

test("registerWasmGradKernels({ replaceConv2DBackpropInput: false }) keeps wasm's own; unregister restores it", async () => {
  await tf.setBackend('wasm');
  const mineFunc = tf.getKernel('Conv2DBackpropInput', 'wasm').kernelFunc;
  unregisterWasmGradKernels(tf);
  const native = tf.getKernel('Conv2DBackpropInput', 'wasm');
  assert.ok(native, "wasm's own Conv2DBackpropInput is back");
  assert.notEqual(native.kernelFunc, mineFunc);
  const r = registerWasmGradKernels(tf, { replaceConv2DBackpropInput: false });
  // The rest is replaced as before: Conv2D, FusedConv2D and the element-wise kernels only where the convolution addon is built.
  assert.deepEqual(r.replaced, [
    'MaxPoolGrad',
    'BatchMatMul',
    'Tile',
    'Slice',
    'Identity',
    'Cast',
    'Sum',
    'Mean',
    ...(nativeConv().addon ? ['Conv2D', 'FusedConv2D', ...ELEMENTWISE] : []),
  ]);
  assert.equal(tf.getKernel('Conv2DBackpropInput', 'wasm').kernelFunc, native.kernelFunc);
  // Switching it back on replaces it again.
  assert.deepEqual(registerWasmGradKernels(tf).replaced, ['Conv2DBackpropInput']);
  assert.notEqual(tf.getKernel('Conv2DBackpropInput', 'wasm').kernelFunc, native.kernelFunc);
});
