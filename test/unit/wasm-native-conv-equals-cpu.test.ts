// The convolutions in C (on oneDNN where the addon has it, native/src/onednn-conv.c, and on the
// addon's own kernels, native/src/conv-kernels.c; registered on wasm by registerWasmGradKernels
// when the addon is built) give the cpu backend's results: the forward Conv2D and FusedConv2D
// (bias, relu, relu6), and both gradients through tf.grads, for geometries
// that reach every path of the addon: pointwise (x is the patch matrix), strided 1x1, 3x3 and 7x7
// with 'same', 'valid' and explicit padding, rows and columns that leave partial 6x16 tiles, a
// depth over the GEMM's 256 (KC) and outputs over its 512 (NC), and a patch matrix over the
// 16 MB scratch (several chunks). The same cases run with MGPU_NATIVE_CONV=0 (wasm's XNNPACK
// forward and the JavaScript im2col gradients), and what the addon leaves to wasm's own kernel
// (leakyrelu, dilations) still comes out right.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { nativeConv, resetNativeConv } from '../../src/worker/wasm-kernels/native-conv.ts';
import { assertClose, randomUniform, seededRandom } from '../helpers/close.ts';
import { nativeSkip } from '../helpers/native.ts';

tf.env().set('IS_TEST', true);
const skip = nativeSkip(nativeConv().addon ? false : `the convolution addon is not in use: ${nativeConv().reason}`);

type Pad = 'valid' | 'same' | [[number, number], [number, number], [number, number], [number, number]];
interface Case {
  x: [number, number, number, number];
  f: [number, number, number, number];
  s: number;
  pad: Pad;
  act?: 'linear' | 'relu' | 'relu6' | 'leakyrelu';
  bias?: boolean;
  dilation?: number;
}
const CASES: Case[] = [
  { x: [2, 5, 7, 9], f: [1, 1, 9, 20], s: 1, pad: 'valid', bias: true }, // pointwise; 70 rows, 20 columns
  { x: [3, 8, 8, 4], f: [1, 1, 4, 33], s: 2, pad: 'valid', act: 'relu' }, // strided 1x1
  { x: [2, 9, 7, 5], f: [3, 3, 5, 17], s: 1, pad: 'same', act: 'relu', bias: true },
  { x: [1, 11, 13, 3], f: [7, 7, 3, 8], s: 2, pad: 'same', act: 'relu6' },
  {
    x: [2, 6, 6, 2],
    f: [3, 3, 2, 5],
    s: 1,
    pad: [
      [0, 0],
      [1, 2],
      [0, 1],
      [0, 0],
    ],
  },
  { x: [1, 4, 4, 40], f: [3, 3, 40, 7], s: 1, pad: 'same' }, // depth 360 > KC
  { x: [1, 3, 3, 6], f: [2, 2, 6, 530], s: 1, pad: 'valid', bias: true }, // 530 outputs > NC
  { x: [1, 32, 32, 512], f: [3, 3, 512, 2], s: 1, pad: 'same' }, // 1024 x 4608 patches: several chunks
  { x: [2, 7, 7, 3], f: [3, 3, 3, 4], s: 1, pad: 'same', act: 'leakyrelu', bias: true }, // wasm's own kernel
  { x: [1, 9, 9, 2], f: [3, 3, 2, 3], s: 1, pad: 'same', dilation: 2 }, // wasm's own kernel (forward)
];

const name = (c: Case) =>
  `x ${c.x} f ${c.f} stride ${c.s} pad ${JSON.stringify(c.pad)} ${c.act ?? 'linear'}${c.bias ? ' +bias' : ''}${c.dilation ? ` dilation ${c.dilation}` : ''}`;

/**
 * The forward (FusedConv2D) and, without dilation, both gradients of sum(conv2d(x, f) · dy) (the
 * plain Conv2D: tfjs-core's gradient of fused.conv2d leaks a tensor with a linear activation,
 * which IS_TEST reports) on the current backend.
 */
interface Result {
  y: Float32Array;
  dx: Float32Array | null;
  df: Float32Array | null;
}
function run(c: Case, x: Float32Array, f: Float32Array, b: Float32Array, dyOf: (shape: number[]) => Float32Array): Result {
  let out: Result = { y: new Float32Array(), dx: null, df: null };
  tf.tidy(() => {
    const xt = tf.tensor4d(x, c.x);
    const ft = tf.tensor4d(f, c.f);
    const y = tf.fused.conv2d({
      x: xt,
      filter: ft,
      strides: c.s,
      pad: c.pad,
      dilations: c.dilation ?? 1,
      bias: c.bias ? tf.tensor1d(b) : undefined,
      activation: c.act ?? 'linear',
      leakyreluAlpha: 0.2,
    });
    const conv = (a: tf.Tensor4D, w: tf.Tensor4D) => tf.conv2d(a, w, c.s, c.pad);
    out = { y: y.dataSync() as Float32Array, dx: null, df: null };
    if (c.dilation) return;
    const dyPlain = tf.tensor(dyOf(conv(xt, ft).shape), conv(xt, ft).shape);
    const [dx, df] = tf.grads((a: tf.Tensor, w: tf.Tensor) =>
      conv(a as tf.Tensor4D, w as tf.Tensor4D)
        .mul(dyPlain)
        .sum(),
    )([xt, ft]);
    out.dx = dx!.dataSync() as Float32Array;
    out.df = df!.dataSync() as Float32Array;
  });
  return out;
}

async function onBackend<T>(backend: string, f: () => T): Promise<T> {
  await tf.setBackend(backend);
  return f();
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
});

for (const native of [true, false]) {
  for (const c of CASES) {
    test(`${native ? 'native' : 'MGPU_NATIVE_CONV=0'}: ${name(c)} == cpu (forward, dx, dfilter)`, { skip: native ? skip : false }, async () => {
      const rand = seededRandom(c.x.concat(c.f).reduce((a, v) => a * 31 + v, 7));
      const x = randomUniform(
        rand,
        c.x.reduce((a, v) => a * v, 1),
      );
      const f = randomUniform(
        rand,
        c.f.reduce((a, v) => a * v, 1),
      );
      const b = randomUniform(rand, c.f[3]);
      const dyCache = new Map<string, Float32Array>();
      const dyOf = (shape: number[]) => {
        const key = shape.join();
        if (!dyCache.has(key))
          dyCache.set(
            key,
            randomUniform(
              seededRandom(99),
              shape.reduce((a, v) => a * v, 1),
            ),
          );
        return dyCache.get(key)!;
      };
      const want = await onBackend('cpu', () => run(c, x, f, b, dyOf));
      await tf.setBackend('wasm');
      useNative(native);
      assert.equal(nativeConv().addon !== null, native, 'the path asked for is the one in use');
      const got = run(c, x, f, b, dyOf);
      const scale = (a: Float32Array) => 1e-5 * a.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
      assertClose(got.y, want.y, 1e-4, scale(want.y), 'forward');
      if (want.dx) assertClose(got.dx!, want.dx, 1e-4, scale(want.dx), 'dx');
      if (want.df) assertClose(got.df!, want.df, 1e-4, scale(want.df), 'dfilter');
    });
  }
}

test('native: the addon checks the sizes it is given against its geometry (a short output is a RangeError, nothing written)', { skip }, () => {
  useNative(true);
  const addon = nativeConv().addon!;
  const geom = Int32Array.from([1, 4, 4, 2, 4, 4, 3, 3, 3, 1, 1, 1, 1, 4, 4]);
  const out = new Float32Array(47).fill(7); // 48 needed
  assert.throws(
    () => addon.conv2d(new Float32Array(32), new Float32Array(54), null, out, geom, 0),
    (e: Error) => e instanceof RangeError && /out holds 47 floats, the geometry needs 48/.test(e.message),
  );
  assert.ok(out.every((v) => v === 7));
  assert.throws(
    () =>
      addon.backpropFilter(new Float32Array(32), new Float32Array(48), new Float32Array(54), Int32Array.from([1, 4, 4, 2, 4, 4, 3, 3, 3, 0, 1, 1, 1, 4, 4])),
    RangeError,
  );
  assert.match(addon.isa(), /^(avx512|avx2-fma|generic)$/);
  const asked = { avx2: 'avx2-fma', generic: 'generic' }[process.env.MGPU_CONV_ISA ?? ''];
  if (asked) assert.equal(addon.isa(), asked, 'MGPU_CONV_ISA picks the micro-kernel');
  // The library: none with MGPU_CONV_LIBRARY=own; oneDNN where CI installs it (MGPU_REQUIRE_NATIVE=1).
  const { library } = nativeConv();
  if (process.env.MGPU_CONV_LIBRARY === 'own') assert.equal(library, null, 'MGPU_CONV_LIBRARY=own turns oneDNN off');
  else if (process.env.MGPU_REQUIRE_NATIVE === '1')
    assert.match(library ?? 'null', /^oneDNN \d+\.\d+\.\d+$/, 'MGPU_REQUIRE_NATIVE=1: the addon is built with oneDNN');
});
