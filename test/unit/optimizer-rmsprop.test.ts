// RMSProp rule (plain, momentum, centered) == tf.train.rmsprop, step by step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import { makeUpdateRule } from '../../src/coordinator/optimizers/index.ts';
import { assertClose, optimizerConfig, randomSignedMagnitude, randomUniform, runRule, seededRandom } from '../helpers/close.ts';

// IS_TEST only silences tfjs's "install tfjs-node" banner on first use of the cpu backend.
tf.env().set('IS_TEST', true);

const N = 300;
const STEPS = 8;

function tfjsRmsprop(
  w0: Float32Array,
  grads: Float32Array[],
  lrs: number[],
  decay: number,
  momentum: number,
  eps: number | undefined,
  centered: boolean,
): Float32Array {
  const opt = tf.train.rmsprop(lrs[0]!, decay, momentum, eps, centered);
  const v = tf.variable(tf.tensor1d(w0));
  for (let k = 0; k < grads.length; k++) {
    // RMSPropOptimizer reads this.learningRate at every applyGradients (protected in the typings).
    (opt as unknown as { learningRate: number }).learningRate = lrs[k]!;
    const g = tf.tensor1d(grads[k]!);
    opt.applyGradients([{ name: v.name, tensor: g }]);
    g.dispose();
  }
  const out = Float32Array.from(v.dataSync());
  v.dispose();
  opt.dispose();
  return out;
}

const varying = [0.01, 0.002, 0.05, 0.02, 0.001, 0.03, 0.01, 0.04];
const cases = [
  {
    label: 'plain, defaults (lr 0.001, decay 0.9, momentum 0, eps backend)',
    lrs: Array(STEPS).fill(0.001),
    decay: 0.9,
    momentum: 0,
    eps: undefined,
    ruleEps: 1e-7,
    centered: false,
  },
  { label: 'plain, lr 0.01, decay 0.8, eps 1e-3', lrs: Array(STEPS).fill(0.01), decay: 0.8, momentum: 0, eps: 1e-3, ruleEps: 1e-3, centered: false },
  { label: 'momentum 0.9, lr 0.01, decay 0.95, eps 1e-6', lrs: Array(STEPS).fill(0.01), decay: 0.95, momentum: 0.9, eps: 1e-6, ruleEps: 1e-6, centered: false },
  { label: 'momentum 0.5, lr changing every step', lrs: varying, decay: 0.9, momentum: 0.5, eps: 1e-7, ruleEps: 1e-7, centered: false },
  {
    label: 'centered, lr 0.001, decay 0.9, eps backend',
    lrs: Array(STEPS).fill(0.001),
    decay: 0.9,
    momentum: 0,
    eps: undefined,
    ruleEps: 1e-7,
    centered: true,
  },
  {
    label: 'centered + momentum 0.7, lr 0.02, decay 0.8, eps 1e-5',
    lrs: Array(STEPS).fill(0.02),
    decay: 0.8,
    momentum: 0.7,
    eps: 1e-5,
    ruleEps: 1e-5,
    centered: true,
  },
  { label: 'centered + momentum 0.3, lr changing every step', lrs: varying, decay: 0.85, momentum: 0.3, eps: 1e-7, ruleEps: 1e-7, centered: true },
];

for (const c of cases) {
  test(`rmsprop matches tf.train.rmsprop (${c.label})`, () => {
    const rand = seededRandom(53);
    const w0 = randomUniform(rand, N);
    // Gradient magnitudes kept in [0.1, 1): centered RMSProp takes sqrt(ms - mg^2 - eps), which is
    // NaN (in tfjs too) where the gradient's running variance is below epsilon.
    const grads = Array.from({ length: STEPS }, () => randomSignedMagnitude(rand, N));
    const expected = tfjsRmsprop(w0, grads, c.lrs, c.decay, c.momentum, c.eps, c.centered);
    const actual = runRule(
      makeUpdateRule(optimizerConfig({ name: 'rmsprop', decay: c.decay, momentum: c.momentum, epsilon: c.ruleEps, centered: c.centered })),
      w0,
      grads,
      c.lrs,
    );
    assertClose(actual, expected, 1e-5, 1e-6, `rmsprop ${c.label}`);
  });
}

test('rmsprop keeps the momentum slot always, and a mean-gradient slot when centered', () => {
  assert.equal(makeUpdateRule(optimizerConfig({ name: 'rmsprop' })).slotCount, 2);
  assert.equal(makeUpdateRule(optimizerConfig({ name: 'rmsprop', centered: true })).slotCount, 3);
});
