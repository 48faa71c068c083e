// AdamW rule == tfjs's own ops for the documented formula bit for bit (decoupled decay
// w *= 1 - lr*wd as one float32 multiplication, then tf.train.adam's step), over fixed gradients
// of every kind of value; weightDecay 0 gives exactly Adam's bits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import { makeUpdateRule } from '../../src/coordinator/engine/optimizers/index.ts';
import { assertClose, optimizerConfig, randomUniform, runRule, seededRandom } from '../helpers/close.ts';
import { assertRuleGivesTfjsBits, tfjsRun } from '../helpers/tfjs-optimizer.ts';

const N = 300;
const STEPS = 8;

// AdamW from tfjs's own pieces: the decay as one tf.mul by the scalar 1 - lr * weightDecay
// (computed in doubles), then tf.train.adam's step.
const tfjsDecay = (lrs: number[], wd: number) => (v: tf.Variable, k: number) => v.assign(tf.tidy(() => tf.mul(v, 1 - lrs[k]! * wd)));

const cases = [
  { label: 'defaults (lr 0.001, 0.9, 0.999, eps 1e-7, wd 0.01)', lrs: Array(STEPS).fill(0.001), b1: 0.9, b2: 0.999, eps: 1e-7, wd: 0.01 },
  { label: 'lr 0.05, beta1 0.8, beta2 0.95, eps 1e-4, wd 0.5', lrs: Array(STEPS).fill(0.05), b1: 0.8, b2: 0.95, eps: 1e-4, wd: 0.5 },
  { label: 'lr changing every step, wd 2', lrs: [0.01, 0.002, 0.05, 0.02, 0.001, 0.03, 0.01, 0.04], b1: 0.85, b2: 0.99, eps: 1e-6, wd: 2 },
];

for (const c of cases) {
  test(`adamw gives the bits of tf.mul(w, 1 - lr * wd) then tf.train.adam (${c.label})`, async () => {
    const run = await tfjsRun(tf.train.adam(c.lrs[0], c.b1, c.b2, c.eps), { seed: 41, n: N, lrs: c.lrs, w0Range: [-3, 3] }, tfjsDecay(c.lrs, c.wd));
    const rule = makeUpdateRule(optimizerConfig({ name: 'adamw', beta1: c.b1, beta2: c.b2, epsilon: c.eps, weightDecay: c.wd }));
    assertRuleGivesTfjsBits(rule, run, `adamw ${c.label}`);
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
