// Momentum rule (plain and nesterov) == tf.train.momentum, step by step.
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { makeUpdateRule } from '../../src/coordinator/optimizers/index.ts';
import { assertClose, optimizerConfig, randomUniform, runRule, seededRandom } from '../helpers/close.ts';

// IS_TEST only silences tfjs's "install tfjs-node" banner on first use of the cpu backend.
tf.env().set('IS_TEST', true);

const N = 300;
const STEPS = 7;

function tfjsMomentum(w0: Float32Array, grads: Float32Array[], lrs: number[], momentum: number, nesterov: boolean): Float32Array {
  const opt = tf.train.momentum(lrs[0]!, momentum, nesterov);
  const v = tf.variable(tf.tensor1d(w0));
  for (let k = 0; k < grads.length; k++) {
    opt.setLearningRate(lrs[k]!);
    const g = tf.tensor1d(grads[k]!);
    opt.applyGradients([{ name: v.name, tensor: g }]);
    g.dispose();
  }
  const out = Float32Array.from(v.dataSync());
  v.dispose();
  opt.dispose();
  return out;
}

const cases = [
  { label: 'plain, lr 0.01, momentum 0.9 (defaults)', lrs: Array(STEPS).fill(0.01), momentum: 0.9, nesterov: false },
  { label: 'plain, lr 0.05, momentum 0.5', lrs: Array(STEPS).fill(0.05), momentum: 0.5, nesterov: false },
  { label: 'nesterov, lr 0.01, momentum 0.9', lrs: Array(STEPS).fill(0.01), momentum: 0.9, nesterov: true },
  { label: 'nesterov, lr 0.2, momentum 0.75', lrs: Array(STEPS).fill(0.2), momentum: 0.75, nesterov: true },
  { label: 'nesterov, lr changing every step', lrs: [0.1, 0.01, 0.3, 0.05, 0.2, 0.001, 0.1], momentum: 0.8, nesterov: true },
  { label: 'plain, lr changing every step', lrs: [0.1, 0.01, 0.3, 0.05, 0.2, 0.001, 0.1], momentum: 0.8, nesterov: false },
];

for (const c of cases) {
  test(`momentum matches tf.train.momentum (${c.label})`, () => {
    const rand = seededRandom(23);
    const w0 = randomUniform(rand, N);
    const grads = Array.from({ length: STEPS }, () => randomUniform(rand, N));
    const expected = tfjsMomentum(w0, grads, c.lrs, c.momentum, c.nesterov);
    const actual = runRule(makeUpdateRule(optimizerConfig({ name: 'momentum', momentum: c.momentum, nesterov: c.nesterov })), w0, grads, c.lrs);
    assertClose(actual, expected, 1e-5, 1e-6, `momentum ${c.label}`);
  });
}
