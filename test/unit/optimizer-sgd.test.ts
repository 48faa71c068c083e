// SGD rule == tf.train.sgd bit for bit, step by step, over fixed gradients of every kind of
// value (large, tiny, subnormal, zero, negative), in the native float kernels and in their
// JavaScript fallback.
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { makeUpdateRule } from '../../src/coordinator/engine/optimizers/index.ts';
import { jsFloatKernels } from '../../src/shared/float-kernels.ts';
import { optimizerConfig } from '../helpers/close.ts';
import { assertRuleGivesTfjsBits, tfjsRun } from '../helpers/tfjs-optimizer.ts';

const N = 400;
const STEPS = 6;

for (const [label, lrs] of [
  ['lr 0.01', Array(STEPS).fill(0.01)],
  ['lr 0.3', Array(STEPS).fill(0.3)],
  ['lr changing every step', [0.1, 0.05, 0.2, 0.001, 0.5, 0.07]],
] as const) {
  test(`sgd gives the bits of tf.train.sgd (${label})`, async () => {
    const run = await tfjsRun(tf.train.sgd(lrs[0]), { seed: 11, n: N, lrs: [...lrs] });
    assertRuleGivesTfjsBits(makeUpdateRule(optimizerConfig({ name: 'sgd' })), run, `sgd ${label}`);
    const js = {
      ...makeUpdateRule(optimizerConfig({ name: 'sgd' })),
      apply: (w: Float32Array, g: Float32Array, _s: Float32Array[], lr: number) => jsFloatKernels.sgd(w, g, -lr),
    };
    assertRuleGivesTfjsBits(js, run, `sgd ${label}, JavaScript kernel`);
  });
}
