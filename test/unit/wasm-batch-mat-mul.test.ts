// BatchMatMul on wasm with transposed operands: registerWasmGradKernels replaces wasm's own
// kernel, whose transposed path is a slow plain loop, with Transpose + the XNNPACK path. Checked
// against the cpu backend for every transpose combination, rank 2 and 3, broadcast batch
// dimensions, and through the gradient of a Dense layer (the path training takes); no heap
// tensor is left behind, and unregistering puts wasm's own kernel back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { assertClose, randomUniform, seededRandom } from '../helpers/close.ts';

tf.env().set('IS_TEST', true);

interface Case {
  a: number[];
  b: number[];
  ta: boolean;
  tb: boolean;
}
const CASES: Case[] = [];
for (const ta of [false, true]) {
  for (const tb of [false, true]) {
    CASES.push({ a: ta ? [7, 5] : [5, 7], b: tb ? [3, 7] : [7, 3], ta, tb });
    CASES.push({ a: ta ? [4, 9, 6] : [4, 6, 9], b: tb ? [4, 2, 9] : [4, 9, 2], ta, tb });
    CASES.push({ a: ta ? [1, 9, 6] : [1, 6, 9], b: tb ? [3, 2, 9] : [3, 9, 2], ta, tb }); // broadcast a
    CASES.push({ a: ta ? [2, 3, 8, 6] : [2, 3, 6, 8], b: tb ? [5, 8] : [8, 5], ta, tb }); // rank 4 x rank 2
  }
}
const size = (s: readonly number[]) => s.reduce((x, y) => x * y, 1);

async function product(backend: 'cpu' | 'wasm', c: Case, av: Float32Array, bv: Float32Array): Promise<{ shape: number[]; values: Float32Array }> {
  await tf.setBackend(backend);
  const out = tf.tidy(() => tf.matMul(tf.tensor(av, c.a), tf.tensor(bv, c.b), c.ta, c.tb));
  const result = { shape: out.shape, values: (await out.data()) as Float32Array };
  out.dispose();
  return result;
}

await tf.setBackend('wasm');
const reg = registerWasmGradKernels(tf);

test("registerWasmGradKernels replaces wasm's own BatchMatMul", () => {
  assert.ok(reg.replaced.includes('BatchMatMul'), `replaced: ${reg.replaced}`);
});

for (const c of CASES) {
  test(`BatchMatMul (replaced) wasm == cpu: a [${c.a}] b [${c.b}] transposeA ${c.ta} transposeB ${c.tb}`, async () => {
    const rand = seededRandom(size(c.a) * 31 + size(c.b) + (c.ta ? 1 : 0) + (c.tb ? 2 : 0));
    const av = randomUniform(rand, size(c.a), -1, 1);
    const bv = randomUniform(rand, size(c.b), -1, 1);
    const cpu = await product('cpu', c, av, bv);
    await tf.setBackend('wasm');
    const before = tf.engine().backend.numDataIds();
    const wasm = await product('wasm', c, av, bv);
    assert.equal(tf.engine().backend.numDataIds(), before, 'heap tensors left behind');
    assert.deepEqual(wasm.shape, cpu.shape);
    assertClose(wasm.values, cpu.values, 1e-5, 1e-6, 'product');
  });
}

test('the gradients of a Dense layer on wasm match the cpu backend', async () => {
  const rand = seededRandom(784);
  const xv = randomUniform(rand, 64 * 20, -1, 1);
  const wv = randomUniform(rand, 20 * 16, -0.5, 0.5);
  const dyv = randomUniform(rand, 64 * 16, -1, 1);
  const grads = async (backend: 'cpu' | 'wasm') => {
    await tf.setBackend(backend);
    const [dx, dw] = tf.tidy(() => {
      const x = tf.tensor2d(xv, [64, 20]);
      const w = tf.tensor2d(wv, [20, 16]);
      const dy = tf.tensor2d(dyv, [64, 16]);
      return tf.grads((xi: tf.Tensor, wi: tf.Tensor) => tf.sum(tf.mul(tf.relu(tf.matMul(xi, wi)), dy)))([x, w]);
    });
    const out = [(await dx!.data()) as Float32Array, (await dw!.data()) as Float32Array];
    tf.dispose([dx!, dw!]);
    return out;
  };
  const [cdx, cdw] = await grads('cpu');
  const [wdx, wdw] = await grads('wasm');
  assertClose(wdx!, cdx!, 1e-5, 1e-5, 'dx = dy·Wᵀ');
  assertClose(wdw!, cdw!, 1e-5, 1e-5, 'dW = xᵀ·dy');
});

test("unregistering puts wasm's own BatchMatMul back, and registering again replaces it again", async () => {
  await tf.setBackend('wasm');
  const ours = tf.getKernel('BatchMatMul', 'wasm');
  unregisterWasmGradKernels(tf);
  const own = tf.getKernel('BatchMatMul', 'wasm');
  assert.notEqual(own.kernelFunc, ours.kernelFunc);
  assert.equal(own.setupFunc, ours.setupFunc, 'the setup that binds the wasm function is kept');
  const again = registerWasmGradKernels(tf);
  assert.ok(again.replaced.includes('BatchMatMul'));
  const x = tf.tensor2d([1, 2, 3, 4, 5, 6], [3, 2]);
  assert.deepEqual(Array.from(await tf.matMul(x, x, true, false).data()), [35, 44, 44, 56]);
  x.dispose();
});
