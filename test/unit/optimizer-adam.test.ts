// Adam rule == tf.train.adam bit for bit (weights, m and v), step by step, over fixed gradients
// of every kind of value: tfjs's float32 operations in tfjs's order, beta^t as tfjs's float32
// accumulated powers; and a rule started afresh at t = k + 1 from the slots after k steps (a
// resumed run) continues with the same bits.
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { makeUpdateRule } from '../../src/coordinator/engine/optimizers/index.ts';
import { optimizerConfig, randomUniform, seededRandom } from '../helpers/close.ts';
import { assertRuleGivesTfjsBits, assertSameTrained, mixedGradients, ruleSteps, tfjsRun, tfjsSteps } from '../helpers/tfjs-optimizer.ts';

const N = 400;
const STEPS = 8;

const cases = [
  // epsilon undefined: tfjs uses the backend epsilon, 1e-7 -- the config default.
  { label: 'defaults (lr 0.001, 0.9, 0.999, eps backend)', lrs: Array(STEPS).fill(0.001), b1: 0.9, b2: 0.999, eps: undefined, ruleEps: 1e-7 },
  { label: 'lr 0.05, beta1 0.8, beta2 0.95, eps 1e-3', lrs: Array(STEPS).fill(0.05), b1: 0.8, b2: 0.95, eps: 1e-3, ruleEps: 1e-3 },
  { label: 'lr 0.01, beta1 0.5, beta2 0.9, eps 0.1', lrs: Array(STEPS).fill(0.01), b1: 0.5, b2: 0.9, eps: 0.1, ruleEps: 0.1 },
  { label: 'lr changing every step', lrs: [0.01, 0.002, 0.05, 0.02, 0.001, 0.03, 0.01, 0.04], b1: 0.85, b2: 0.99, eps: 1e-6, ruleEps: 1e-6 },
];

const adamConfig = (c: (typeof cases)[number]) => optimizerConfig({ name: 'adam', beta1: c.b1, beta2: c.b2, epsilon: c.ruleEps });

for (const c of cases) {
  test(`adam gives the bits of tf.train.adam (${c.label})`, async () => {
    const run = await tfjsRun(tf.train.adam(c.lrs[0], c.b1, c.b2, c.eps), { seed: 37, n: N, lrs: c.lrs });
    assertRuleGivesTfjsBits(makeUpdateRule(adamConfig(c)), run, `adam ${c.label}`);
  });
}

test('adam resumed at t = 6 by a fresh rule from the slots after 5 steps gives the uninterrupted bits', async () => {
  const c = cases[0]!;
  const rand = seededRandom(39);
  const w0 = randomUniform(rand, N);
  const grads = mixedGradients(rand, N, STEPS);
  const expected = await tfjsSteps(tf.train.adam(c.lrs[0], c.b1, c.b2, c.eps), w0, grads, c.lrs);
  const first = ruleSteps(makeUpdateRule(adamConfig(c)), w0, grads.slice(0, 5), c.lrs.slice(0, 5));
  const resumed = ruleSteps(makeUpdateRule(adamConfig(c)), first.weights, grads.slice(5), c.lrs.slice(5), first, 6);
  assertSameTrained(resumed, expected, 'adam resumed at t = 6');
});
