// Momentum rule (plain and nesterov) == tf.train.momentum bit for bit (weights and the
// accumulation slot), step by step, over fixed gradients of every kind of value.
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { makeUpdateRule } from '../../src/coordinator/engine/optimizers/index.ts';
import { optimizerConfig } from '../helpers/close.ts';
import { assertRuleGivesTfjsBits, tfjsRun } from '../helpers/tfjs-optimizer.ts';

const N = 400;
const STEPS = 7;

const cases = [
  { label: 'plain, lr 0.01, momentum 0.9 (defaults)', lrs: Array(STEPS).fill(0.01), momentum: 0.9, nesterov: false },
  { label: 'plain, lr 0.05, momentum 0.5', lrs: Array(STEPS).fill(0.05), momentum: 0.5, nesterov: false },
  { label: 'nesterov, lr 0.01, momentum 0.9', lrs: Array(STEPS).fill(0.01), momentum: 0.9, nesterov: true },
  { label: 'nesterov, lr 0.2, momentum 0.75', lrs: Array(STEPS).fill(0.2), momentum: 0.75, nesterov: true },
  { label: 'nesterov, lr changing every step', lrs: [0.1, 0.01, 0.3, 0.05, 0.2, 0.001, 0.1], momentum: 0.8, nesterov: true },
  { label: 'plain, lr changing every step', lrs: [0.1, 0.01, 0.3, 0.05, 0.2, 0.001, 0.1], momentum: 0.8, nesterov: false },
];

for (const c of cases) {
  test(`momentum gives the bits of tf.train.momentum (${c.label})`, async () => {
    const run = await tfjsRun(tf.train.momentum(c.lrs[0], c.momentum, c.nesterov), { seed: 23, n: N, lrs: c.lrs });
    const rule = makeUpdateRule(optimizerConfig({ name: 'momentum', momentum: c.momentum, nesterov: c.nesterov }));
    assertRuleGivesTfjsBits(rule, run, `momentum ${c.label}`);
  });
}
