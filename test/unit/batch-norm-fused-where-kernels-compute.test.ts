// A worker's BatchNormalization (tfjs's own layer, its call wrapped by fuseBatchNormalization)
// runs the fused kernels only where they compute what tfjs's layer computes: channels on the last
// axis (axis -1 or the rank's last, written either way; a Dense's [rows, features] included), on
// float32 rows, at least one of them, on a backend that registered the kernels (wasm here).
// Anywhere else it is tfjs's own call: the same output and moving statistics bit for bit, and
// the fused kernel not run. Without beta (center false) or gamma (scale false) the fused call
// takes zeros or ones in their place: tfjs-layers 4.22's own layer fails in training there
// (it reads the missing weight), so those are held to tfjs's layer with both, at their initial
// zeros and ones. Wrapping twice wraps once; unfusing puts tfjs's call back.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { fuseBatchNormalization, unfuseBatchNormalization } from '../../src/worker/fused-batch-norm.ts';
import { registerWasmGradKernels, unregisterWasmGradKernels } from '../../src/worker/wasm-kernels/index.ts';
import { randomUniform, seededRandom } from '../helpers/close.ts';

type Args = Parameters<typeof tf.layers.batchNormalization>[0];

before(async () => {
  await tf.setBackend('wasm');
  registerWasmGradKernels(tf);
});
after(() => {
  unfuseBatchNormalization(tf);
  unregisterWasmGradKernels(tf);
});

/** One training-mode call: the output, the moving statistics after it, and the kernels run. */
async function trainCall(layer: tf.layers.Layer, shape: number[]): Promise<{ y: Float32Array; moving: Float32Array[]; kernels: string[] }> {
  const n = shape.reduce((a, b) => a * b, 1);
  const x = tf.tensor(randomUniform(seededRandom(n + shape.length), n, -1, 2), shape);
  layer.apply(tf.zeros(shape.map((d) => Math.max(d, 1)))); // builds it
  let y: Float32Array = new Float32Array();
  const profile = await tf.profile(() => {
    y = (layer.apply(x, { training: true }) as tf.Tensor).dataSync() as Float32Array;
  });
  const moving = layer
    .getWeights()
    .slice(-2)
    .map((w) => w.dataSync() as Float32Array);
  x.dispose();
  return { y, moving, kernels: profile.kernels.map((k) => k.name) };
}

// [what, the layer's arguments, tfjs's layer to compare with (default: the same), x's shape, fused]
const CASES: [string, Args, Args | null, number[], boolean][] = [
  ['axis -1', {}, null, [2, 3, 3, 4], true],
  ['axis 3 (the last, written out)', { axis: 3 }, null, [2, 3, 3, 4], true],
  ["a Dense's output [rows, features]", {}, null, [6, 5], true],
  ['center false (no beta)', { center: false }, {}, [2, 3, 3, 4], true],
  ['scale false (no gamma)', { scale: false }, {}, [2, 3, 3, 4], true],
  ['axis 1 (channels first)', { axis: 1 }, null, [2, 4, 3, 3], false],
  ['an empty batch', {}, null, [0, 3, 3, 4], false],
];

for (const [what, args, tfjsArgs, shape, fused] of CASES) {
  test(`${what}: ${fused ? 'the fused kernel, within float error of' : "tfjs's own layer, bit for bit:"} tfjs's layer`, async () => {
    const common = { epsilon: 1e-5, momentum: 0.9 };
    fuseBatchNormalization(tf);
    const ours = await trainCall(tf.layers.batchNormalization({ ...common, ...args }), shape);
    unfuseBatchNormalization(tf);
    const theirs = await trainCall(tf.layers.batchNormalization({ ...common, ...(tfjsArgs ?? args) }), shape);
    assert.equal(ours.kernels.includes('MgpuBatchNormTrain'), fused, `kernels: ${ours.kernels.join(' ')}`);
    const pairs: [string, Float32Array, Float32Array][] = [
      ['y', ours.y, theirs.y],
      ['moving mean', ours.moving[0]!, theirs.moving[0]!],
      ['moving variance', ours.moving[1]!, theirs.moving[1]!],
    ];
    for (const [name, a, b] of pairs) {
      assert.equal(a.length, b.length, name);
      if (fused) a.forEach((v, i) => assert.ok(Math.abs(v - b[i]!) <= 1e-5 * Math.max(1, Math.abs(b[i]!)), `${name}[${i}]: ${v} vs ${b[i]}`));
      else assert.deepEqual(Array.from(a), Array.from(b), name);
    }
  });
}

test("wrapping twice wraps once, and unfusing puts tfjs's own call back", () => {
  const proto = Object.getPrototypeOf(tf.layers.batchNormalization({})) as { call: unknown };
  unfuseBatchNormalization(tf);
  const tfjsCall = proto.call;
  fuseBatchNormalization(tf);
  const wrapped = proto.call;
  assert.notEqual(wrapped, tfjsCall);
  fuseBatchNormalization(tf);
  assert.equal(proto.call, wrapped);
  unfuseBatchNormalization(tf);
  assert.equal(proto.call, tfjsCall);
});
