// The element-wise kernels (src/worker/wasm-kernels/elementwise.ts: comparisons, LogicalAnd /
// LogicalOr, Maximum / Minimum, Select, LeakyRelu) give wasm's own results bit for bit: each op
// is run with mgpu's kernels registered and again on wasm's own, over NaN, ±0, ±Infinity and
// ordinary values, as float32, int32 and bool, with both operands whole, either one a single
// element (a scalar or a [1, 1]), and shapes that broadcast otherwise (which go to wasm's own).
// Where the addon is built, its functions must have done the work (counted); without it
// (MGPU_NATIVE_CONV=0, wasm-kernels-every-path) everything is wasm's.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { nativeConv } from '../../src/worker/wasm-kernels/native-conv.ts';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';

tf.env().set('IS_TEST', true);
after(() => unregisterWasmGradKernels(tf));

const F = [NaN, 1, -0, 0, 2, -3, NaN, Infinity, -Infinity, 0.5, 7, -1e-30];
const G = [1, NaN, 0, -0, 2, -1, NaN, -Infinity, -Infinity, 0.25, 7, 1e-30];
const I = [3, -2, 0, 7, 7, -9, 1, 0, 5, 2, -1, 4];
const J = [3, 2, 0, -7, 6, -9, 2, 1, 5, -2, -1, 4];
const B = [1, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 0];
const C = [1, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1];

type Op = (a: tf.Tensor, b: tf.Tensor) => tf.Tensor;
const NUMERIC: [string, Op][] = [
  ['greater', tf.greater],
  ['greaterEqual', tf.greaterEqual],
  ['less', tf.less],
  ['lessEqual', tf.lessEqual],
  ['equal', tf.equal],
  ['notEqual', tf.notEqual],
  ['maximum', tf.maximum],
  ['minimum', tf.minimum],
];
const LOGICAL: [string, Op][] = [
  ['logicalAnd', tf.logicalAnd],
  ['logicalOr', tf.logicalOr],
  ['equal', tf.equal],
];

/** Operand pairs: [what, a, b]; a and b from the value lists, in shapes that broadcast in each way. */
function pairs(xs: number[], ys: number[], dtype: 'float32' | 'int32' | 'bool'): [string, () => [tf.Tensor, tf.Tensor]][] {
  return [
    ['whole [3, 4] and [3, 4]', () => [tf.tensor(xs, [3, 4], dtype), tf.tensor(ys, [3, 4], dtype)]],
    ['whole [12] and [1, 12]', () => [tf.tensor(xs, [12], dtype), tf.tensor(ys, [1, 12], dtype)]],
    ['a scalar and [3, 4]', () => [tf.scalar(xs[4]!, dtype), tf.tensor(ys, [3, 4], dtype)]],
    ['[3, 4] and a [1, 1]', () => [tf.tensor(xs, [3, 4], dtype), tf.tensor([ys[1]!], [1, 1], dtype)]],
    ['[12] and a NaN-or-first scalar', () => [tf.tensor(xs, [12], dtype), tf.scalar(ys[0]!, dtype)]],
    ['both one element', () => [tf.tensor([xs[0]!], [1], dtype), tf.scalar(ys[0]!, dtype)]],
    ["a row over [3, 4] (wasm's own)", () => [tf.tensor(xs, [3, 4], dtype), tf.tensor(ys.slice(0, 4), [4], dtype)]],
  ];
}

/** Bits of a result: its dtype, shape and values (NaN's sign and payload kept). */
async function bits(t: tf.Tensor): Promise<[string, number[], number[]]> {
  const data = await t.data();
  const raw = data instanceof Float32Array ? Array.from(new Uint32Array(data.buffer, data.byteOffset, data.length)) : Array.from(data);
  return [t.dtype, t.shape, raw];
}

/** f's result with mgpu's kernels and with wasm's own, and how many calls reached the addon. */
async function both(f: () => tf.Tensor): Promise<{ ours: Awaited<ReturnType<typeof bits>>; wasm: Awaited<ReturnType<typeof bits>>; native: number }> {
  await tf.setBackend('wasm');
  // Count the addon's calls through a stand-in whose three functions count, then call the real ones.
  const loaded = nativeConv();
  const real = loaded.addon;
  let native = 0;
  if (real) {
    const counting = (name: 'binary' | 'select' | 'leakyRelu') => ({
      value: (...a: unknown[]) => {
        native++;
        return (real[name] as (...a: unknown[]) => unknown)(...a);
      },
    });
    loaded.addon = Object.create(real, { binary: counting('binary'), select: counting('select'), leakyRelu: counting('leakyRelu') }) as typeof real;
  }
  try {
    registerWasmGradKernels(tf); // after the stand-in: the kernels take the addon as they are registered
    const ours = await bits(f());
    unregisterWasmGradKernels(tf);
    const wasm = await bits(f());
    return { ours, wasm, native };
  } finally {
    loaded.addon = real;
  }
}

const withAddon = nativeConv().addon !== null;

for (const [dtype, xs, ys, ops] of [
  ['float32', F, G, NUMERIC],
  ['int32', I, J, NUMERIC],
  ['bool', B, C, LOGICAL],
] as const) {
  test(`${dtype}: ${ops.map(([n]) => n).join(', ')} give wasm's own bits, shape and dtype`, async () => {
    for (const [name, op] of ops) {
      for (const [what, make] of pairs([...xs], [...ys], dtype)) {
        const { ours, wasm, native } = await both(() => {
          const [a, b] = make();
          return op(a, b);
        });
        assert.deepEqual(ours, wasm, `${name}, ${what}`);
        const computedHere = withAddon && !what.includes("wasm's own");
        assert.equal(native, computedHere ? 1 : 0, `${name}, ${what}: calls to the addon`);
      }
    }
  });
}

test("Select (tf.where) over float32 and int32 gives wasm's bits", async () => {
  const cases: [string, () => tf.Tensor, number][] = [
    ['float32', () => tf.where(tf.tensor(B, [3, 4], 'bool'), tf.tensor(F, [3, 4]), tf.tensor(G, [3, 4])), 1],
    ['int32', () => tf.where(tf.tensor(C, [12], 'bool'), tf.tensor(I, [12], 'int32'), tf.tensor(J, [12], 'int32')), 1],
    ['a [3, 1] condition, broadcast by tf.where first', () => tf.where(tf.tensor([1, 0, 1], [3, 1], 'bool'), tf.tensor(F, [3, 4]), tf.tensor(G, [3, 4])), 1],
  ];
  for (const [what, f, calls] of cases) {
    const { ours, wasm, native } = await both(f);
    assert.deepEqual(ours, wasm, what);
    assert.equal(native, withAddon ? calls : 0, `${what}: calls to the addon`);
  }
});

test("LeakyRelu gives wasm's bits (its float32 product with alpha), int32 is wasm's", async () => {
  for (const alpha of [0.1, 0.3, 0.2, 1e-3]) {
    const { ours, wasm, native } = await both(() =>
      tf.leakyRelu(
        tf.tensor(
          F.map((v) => v * 0.7),
          [3, 4],
        ),
        alpha,
      ),
    );
    assert.deepEqual(ours, wasm, `alpha ${alpha}`);
    assert.equal(native, withAddon ? 1 : 0);
  }
  const { ours, wasm } = await both(() => tf.leakyRelu(tf.tensor(I, [12], 'int32'), 0.5));
  assert.deepEqual(ours, wasm, 'int32');
});

test("wasm semantics, not the cpu backend's: maximum(1, NaN) = 1, maximum(-0, 0) = -0, minimum(0, -0) = 0", async () => {
  const { ours } = await both(() => tf.maximum(tf.tensor1d([1, -0]), tf.tensor1d([NaN, 0])));
  assert.deepEqual(ours[2], [0x3f800000, 0x80000000]);
  const min = await both(() => tf.minimum(tf.tensor1d([0]), tf.tensor1d([-0])));
  assert.deepEqual(min.ours[2], [0]);
});
