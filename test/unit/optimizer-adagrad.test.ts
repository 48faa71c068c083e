// Adagrad rule == tf.train.adagrad bit for bit (weights and accumulator), step by step, over
// fixed gradients of every kind of value (initial accumulator, sqrt(acc + eps)).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import { makeUpdateRule } from '../../src/coordinator/engine/optimizers/index.ts';
import { assertClose, optimizerConfig, randomUniform, runRule, seededRandom } from '../helpers/close.ts';
import { assertRuleGivesTfjsBits, tfjsRun } from '../helpers/tfjs-optimizer.ts';

const N = 300;
const STEPS = 7;

// tfjs Adagrad has no epsilon argument: it always uses the backend epsilon (1e-7 on 'cpu').
const cases = [
  { label: 'defaults (lr 0.01, initial accumulator 0.1)', lrs: Array(STEPS).fill(0.01), initAcc: undefined, ruleInit: 0.1 },
  { label: 'lr 0.5, initial accumulator 0.01', lrs: Array(STEPS).fill(0.5), initAcc: 0.01, ruleInit: 0.01 },
  { label: 'lr 0.1, initial accumulator 2', lrs: Array(STEPS).fill(0.1), initAcc: 2, ruleInit: 2 },
  { label: 'lr changing every step, initial accumulator 0.3', lrs: [0.1, 0.02, 0.5, 0.05, 0.2, 0.01, 0.3], initAcc: 0.3, ruleInit: 0.3 },
];

for (const c of cases) {
  test(`adagrad gives the bits of tf.train.adagrad (${c.label})`, async () => {
    const run = await tfjsRun(tf.train.adagrad(c.lrs[0], c.initAcc), { seed: 59, n: N, lrs: c.lrs });
    const rule = makeUpdateRule(optimizerConfig({ name: 'adagrad', initialAccumulatorValue: c.ruleInit }));
    assertRuleGivesTfjsBits(rule, run, `adagrad ${c.label}`);
  });
}

test('adagrad puts epsilon inside the sqrt (a large epsilon, against the float64 formula: tfjs Adagrad takes none)', () => {
  const rand = seededRandom(67);
  const w0 = randomUniform(rand, N);
  const grads = Array.from({ length: STEPS }, () => randomUniform(rand, N, -0.3, 0.3));
  const lrs = [0.1, 0.02, 0.5, 0.05, 0.2, 0.01, 0.3];
  const w = Float64Array.from(w0);
  const acc = new Float64Array(N).fill(0.05);
  for (let k = 0; k < STEPS; k++) {
    for (let i = 0; i < N; i++) {
      const g = grads[k]![i]!;
      acc[i] = acc[i]! + g * g;
      w[i] = w[i]! - (lrs[k]! * g) / Math.sqrt(acc[i]! + 0.5);
    }
  }
  assertClose(
    runRule(makeUpdateRule(optimizerConfig({ name: 'adagrad', initialAccumulatorValue: 0.05, epsilon: 0.5 })), w0, grads, lrs),
    w,
    1e-5,
    1e-6,
    'adagrad epsilon 0.5',
  );
});

test('adagrad starts its accumulator slot at initialAccumulatorValue', () => {
  const r = makeUpdateRule(optimizerConfig({ name: 'adagrad', initialAccumulatorValue: 0.25 }));
  assert.equal(r.slotCount, 1);
  assert.deepEqual(r.slotInit, [0.25]);
});
