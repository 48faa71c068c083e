// RMSProp rule (plain, momentum, centered) == tf.train.rmsprop bit for bit (weights and every
// slot), step by step, over fixed gradients of every kind of value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import { makeUpdateRule } from '../../src/coordinator/engine/optimizers/index.ts';
import { optimizerConfig, randomSignedMagnitude } from '../helpers/close.ts';
import { assertRuleGivesTfjsBits, tfjsRun } from '../helpers/tfjs-optimizer.ts';

const N = 300;
const STEPS = 8;

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
  test(`rmsprop gives the bits of tf.train.rmsprop (${c.label})`, async () => {
    // Centered RMSProp takes sqrt(ms - (mg^2 + eps)), which is NaN (in tfjs too) where the
    // gradient's running variance is below epsilon: its gradients keep magnitudes in [0.1, 1) or
    // large, so that most values stay finite; the plain forms get every kind of value.
    const centeredGrads = (rand: () => number) =>
      Array.from({ length: STEPS }, () => randomSignedMagnitude(rand, N).map((g, i) => (i % 5 === 0 ? g * 1e4 : g)));
    const run = await tfjsRun(tf.train.rmsprop(c.lrs[0], c.decay, c.momentum, c.eps, c.centered), {
      seed: 53,
      n: N,
      lrs: c.lrs,
      ...(c.centered ? { grads: centeredGrads } : {}),
    });
    const rule = makeUpdateRule(optimizerConfig({ name: 'rmsprop', decay: c.decay, momentum: c.momentum, epsilon: c.ruleEps, centered: c.centered }));
    assertRuleGivesTfjsBits(rule, run, `rmsprop ${c.label}`);
  });
}

test('rmsprop keeps the momentum slot always, and a mean-gradient slot when centered', () => {
  assert.equal(makeUpdateRule(optimizerConfig({ name: 'rmsprop' })).slotCount, 2);
  assert.equal(makeUpdateRule(optimizerConfig({ name: 'rmsprop', centered: true })).slotCount, 3);
});
