// AdamW rule == a plain-JS float64 reference of the documented formula (decoupled decay
// w -= lr*wd*w, then the tfjs Adam step); weightDecay 0 gives exactly Adam's bits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeUpdateRule } from '../../src/coordinator/optimizers/index.ts';
import { assertClose, optimizerConfig, randomUniform, runRule, seededRandom } from '../helpers/close.ts';

const N = 300;
const STEPS = 8;

function referenceAdamW(w0: Float32Array, grads: Float32Array[], lrs: number[], b1: number, b2: number, eps: number, wd: number): Float64Array {
  const w = Float64Array.from(w0);
  const m = new Float64Array(w.length);
  const v = new Float64Array(w.length);
  for (let k = 0; k < grads.length; k++) {
    const t = k + 1;
    const lr = lrs[k]!;
    const g = grads[k]!;
    for (let i = 0; i < w.length; i++) {
      w[i] = w[i]! - lr * wd * w[i]!;
      m[i] = b1 * m[i]! + (1 - b1) * g[i]!;
      v[i] = b2 * v[i]! + (1 - b2) * g[i]! * g[i]!;
      const mHat = m[i]! / (1 - b1 ** t);
      const vHat = v[i]! / (1 - b2 ** t);
      w[i] = w[i]! - (lr * mHat) / (Math.sqrt(vHat) + eps);
    }
  }
  return w;
}

const cases = [
  { label: 'defaults (lr 0.001, 0.9, 0.999, eps 1e-7, wd 0.01)', lrs: Array(STEPS).fill(0.001), b1: 0.9, b2: 0.999, eps: 1e-7, wd: 0.01 },
  { label: 'lr 0.05, beta1 0.8, beta2 0.95, eps 1e-4, wd 0.5', lrs: Array(STEPS).fill(0.05), b1: 0.8, b2: 0.95, eps: 1e-4, wd: 0.5 },
  { label: 'lr changing every step, wd 2', lrs: [0.01, 0.002, 0.05, 0.02, 0.001, 0.03, 0.01, 0.04], b1: 0.85, b2: 0.99, eps: 1e-6, wd: 2 },
];

for (const c of cases) {
  test(`adamw matches the float64 reference (${c.label})`, () => {
    const rand = seededRandom(41);
    const w0 = randomUniform(rand, N, -3, 3);
    const grads = Array.from({ length: STEPS }, () => randomUniform(rand, N));
    const expected = referenceAdamW(w0, grads, c.lrs, c.b1, c.b2, c.eps, c.wd);
    const actual = runRule(makeUpdateRule(optimizerConfig({ name: 'adamw', beta1: c.b1, beta2: c.b2, epsilon: c.eps, weightDecay: c.wd })), w0, grads, c.lrs);
    assertClose(actual, expected, 1e-5, 1e-6, `adamw ${c.label}`);
  });
}

test('adamw with weightDecay 0 gives exactly the bits of adam', () => {
  const rand = seededRandom(43);
  const w0 = randomUniform(rand, N);
  const grads = Array.from({ length: STEPS }, () => randomUniform(rand, N));
  const lrs = [0.01, 0.002, 0.05, 0.02, 0.001, 0.03, 0.01, 0.04];
  const a = runRule(makeUpdateRule(optimizerConfig({ name: 'adamw', weightDecay: 0 })), w0, grads, lrs);
  const b = runRule(makeUpdateRule(optimizerConfig({ name: 'adam' })), w0, grads, lrs);
  assert.deepEqual(new Uint32Array(a.buffer), new Uint32Array(b.buffer));
});

test('adamw decay is decoupled: with zero gradients w shrinks by exactly (1 - lr*wd) per step', () => {
  const rand = seededRandom(47);
  const w0 = randomUniform(rand, N, -3, 3);
  const zero = new Float32Array(N);
  const lrs = [0.1, 0.05, 0.2];
  const actual = runRule(makeUpdateRule(optimizerConfig({ name: 'adamw', weightDecay: 0.5 })), w0, [zero, zero, zero], lrs);
  const expected = Array.from(w0, (x) => x * (1 - 0.05) * (1 - 0.025) * (1 - 0.1));
  assertClose(actual, expected, 1e-6, 1e-7, 'adamw decay only');
});
