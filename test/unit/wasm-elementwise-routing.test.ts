// Which calls the element-wise kernels (src/worker/wasm-kernels/elementwise.ts) compute, and which
// they leave to wasm's own kernel: wholeOrOne's shapes (each operand all of the output or one
// element), and, through tf.engine().runKernel (which, unlike tf's ops, neither casts nor
// broadcasts first), operands of mixed dtypes, a condition that is not bool, sizes that differ
// and empty tensors, each of which must give wasm's own result without reaching the addon.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { wholeOrOne } from '../../src/worker/wasm-kernels/elementwise.ts';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { nativeConv } from '../../src/worker/wasm-kernels/native-conv.ts';

tf.env().set('IS_TEST', true);
before(async () => {
  await tf.setBackend('wasm');
});
after(() => unregisterWasmGradKernels(tf));

test('wholeOrOne: the output shape where each operand is all of it or one element, else null', () => {
  assert.deepEqual(wholeOrOne([3, 4], [3, 4]), [3, 4]);
  assert.deepEqual(wholeOrOne([], [3, 4]), [3, 4]);
  assert.deepEqual(wholeOrOne([3, 4], [1, 1]), [3, 4]);
  assert.deepEqual(wholeOrOne([1, 1], [3]), [1, 3]);
  assert.deepEqual(wholeOrOne([12], [1, 12]), [1, 12]);
  assert.deepEqual(wholeOrOne([1], []), [1]);
  assert.equal(wholeOrOne([3, 4], [4]), null, 'a row broadcast over rows');
  assert.equal(wholeOrOne([3, 1], [1, 4]), null, 'an outer broadcast');
  assert.equal(wholeOrOne([2, 2], [4, 1]), null, 'the same size, but shapes that do not broadcast');
  assert.equal(wholeOrOne([3], [4]), null);
  assert.equal(wholeOrOne([0], [0]), null, 'empty');
  assert.equal(wholeOrOne([2, 0], [1]), null, 'empty');
});

/** runKernel(name) with mgpu's kernels (and the addon calls it made) and with wasm's own. */
function both(name: string, inputs: Record<string, tf.Tensor>, attrs: Record<string, unknown> = {}): { ours: unknown; wasm: unknown; calls: number } {
  const loaded = nativeConv();
  const real = loaded.addon;
  let calls = 0;
  if (real) {
    const counting = (fn: keyof typeof real) => ({
      value: (...a: unknown[]) => {
        calls++;
        return (real[fn] as (...a: unknown[]) => unknown)(...a);
      },
    });
    loaded.addon = Object.create(real, { binary: counting('binary'), select: counting('select'), leakyRelu: counting('leakyRelu') }) as typeof real;
  }
  const run = () => {
    const t = tf.engine().runKernel<tf.Tensor>(name, inputs, attrs as never);
    return [t.dtype, t.shape, Array.from(t.dataSync())];
  };
  try {
    registerWasmGradKernels(tf);
    const ours = run();
    unregisterWasmGradKernels(tf);
    return { ours, wasm: run(), calls };
  } finally {
    loaded.addon = real;
  }
}

test("mixed dtypes, a condition that is not bool, sizes that differ and empty tensors are wasm's own", () => {
  const f = tf.tensor([1, -2, 3, 0.5], [4]);
  const cases: [string, string, Record<string, tf.Tensor>][] = [
    ['Greater of float32 and int32', 'Greater', { a: f, b: tf.tensor([1, 0, 3, 1], [4], 'int32') }],
    ['Maximum of empty tensors', 'Maximum', { a: tf.tensor([], [0]), b: tf.tensor([], [0]) }],
    ['Select on an int32 condition', 'Select', { condition: tf.tensor([1, 0, 1, 0], [4], 'int32'), t: f, e: f.neg() }],
    ['Select of float32 and int32', 'Select', { condition: tf.tensor([1, 0, 1, 0], [4], 'bool'), t: f, e: tf.tensor([7, 8, 9, 10], [4], 'int32') }],
    ['Select by a rank-1 condition over rows', 'Select', { condition: tf.tensor([1, 0], [2], 'bool'), t: f.reshape([2, 2]), e: f.neg().reshape([2, 2]) }],
    ['Select with e of another size', 'Select', { condition: tf.tensor([1, 0, 1, 0], [4], 'bool'), t: f, e: tf.tensor([5, 6], [2]) }],
    ['Select of empty tensors', 'Select', { condition: tf.tensor([], [0], 'bool'), t: tf.tensor([], [0]), e: tf.tensor([], [0]) }],
    ['LeakyRelu of an empty tensor', 'LeakyRelu', { x: tf.tensor([], [2, 0]) }],
  ];
  for (const [what, name, inputs] of cases) {
    const result = both(name, inputs, name === 'LeakyRelu' ? { alpha: 0.2 } : {});
    assert.equal(result.calls, 0, `${what}: computed by the addon`);
    assert.deepEqual(result.ours, result.wasm, what);
  }
});
