// The cpu backend, as the worker loads it (loadBackend('cpu')), computes the gradient of
// tf.image.resizeNearestNeighbor exactly for batches of several images, with alignCorners and
// halfPixelCenters: the reference is the forward op's own Jacobian, probed by resizing one-hot
// images (the image with a 1 at pixel i alone resizes to the outputs that copy pixel i), so
// dx[b, i] = Σ_o J[i, o] · dy[b, o]. tfjs-backend-cpu 4.22's own kernel fails this for batch > 1.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tensor, Tensor4D } from '@tensorflow/tfjs';
import { loadBackend, type TF } from '../../src/worker/backend.ts';
import { unregisterCpuKernels, registerCpuKernels } from '../../src/worker/cpu-kernels/index.ts';
import { seededRandom } from '../helpers/close.ts';

interface Case {
  images: [number, number, number, number]; // [B, H, W, C]
  size: [number, number];
  alignCorners: boolean;
  halfPixelCenters: boolean;
}

const CASES: Case[] = [
  { images: [2, 4, 4, 3], size: [8, 8], alignCorners: false, halfPixelCenters: false }, // UpSampling2D size 2
  { images: [3, 3, 5, 2], size: [7, 4], alignCorners: false, halfPixelCenters: false }, // up in one axis, down in the other
  { images: [2, 3, 4, 1], size: [5, 7], alignCorners: true, halfPixelCenters: false },
  { images: [2, 4, 3, 2], size: [6, 7], alignCorners: false, halfPixelCenters: true },
];

/** dx by the forward op's Jacobian, probed with one-hot images, in float64. */
function exactGrad(tf: TF, c: Case, dy: Float32Array): Float64Array {
  const [B, H, W, C] = c.images;
  const [OH, OW] = c.size;
  const pixels = H * W * C;
  const outs = OH * OW * C;
  const probe = tf.tidy(() => {
    const eye = tf.tensor4d(tf.eye(pixels).dataSync(), [pixels, H, W, C]);
    return tf.image.resizeNearestNeighbor(eye, c.size, c.alignCorners, c.halfPixelCenters).dataSync() as Float32Array;
  });
  const dx = new Float64Array(B * pixels);
  for (let b = 0; b < B; b++)
    for (let i = 0; i < pixels; i++) {
      let s = 0;
      for (let o = 0; o < outs; o++) s += probe[i * outs + o]! * dy[b * outs + o]!;
      dx[b * pixels + i] = s;
    }
  return dx;
}

function kernelGrad(tf: TF, c: Case, x: Float32Array, dy: Float32Array): Float32Array {
  return tf.tidy(() => {
    const [B] = c.images;
    const dyT = tf.tensor4d(dy, [B, c.size[0], c.size[1], c.images[3]]);
    const g = tf.grad((img: Tensor) => tf.sum(tf.mul(tf.image.resizeNearestNeighbor(img as Tensor4D, c.size, c.alignCorners, c.halfPixelCenters), dyT)));
    return g(tf.tensor4d(x, c.images)).dataSync() as Float32Array;
  });
}

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
};

test('loadBackend(cpu): the gradient of resizeNearestNeighbor equals the exact one, batch > 1', async (t) => {
  const { tf } = await loadBackend('cpu');
  assert.equal(tf.getBackend(), 'cpu');
  for (const c of CASES) {
    const rand = seededRandom(c.images.reduce((a, b) => a * 7 + b, 1));
    const x = Float32Array.from({ length: c.images.reduce((a, b) => a * b, 1) }, () => rand() * 2 - 1);
    const dy = Float32Array.from({ length: c.images[0] * c.size[0] * c.size[1] * c.images[3] }, () => rand() * 2 - 1);
    const want = exactGrad(tf, c, dy);
    const got = kernelGrad(tf, c, x, dy);
    unregisterCpuKernels(tf);
    const stock = kernelGrad(tf, c, x, dy);
    registerCpuKernels(tf);
    const what = `[${c.images}] -> ${c.size.join('x')}${c.alignCorners ? ' alignCorners' : ''}${c.halfPixelCenters ? ' halfPixelCenters' : ''}`;
    t.diagnostic(`${what}: max |diff| ${maxDiff(got, want).toExponential(2)}; tfjs-backend-cpu's own kernel ${maxDiff(stock, want).toFixed(2)}`);
    assert.ok(maxDiff(got, want) <= 1e-5, `${what}: max |diff| ${maxDiff(got, want)} against the exact gradient`);
  }
});
