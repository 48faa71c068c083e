// Adam rule == tf.train.adam, step by step (bias correction via t, epsilon placement).
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { makeUpdateRule } from '../../src/coordinator/optimizers/index.ts';
import { assertClose, optimizerConfig, randomUniform, runRule, seededRandom } from '../helpers/close.ts';

// IS_TEST only silences tfjs's "install tfjs-node" banner on first use of the cpu backend.
tf.env().set('IS_TEST', true);

const N = 300;
const STEPS = 8;

function tfjsAdam(w0: Float32Array, grads: Float32Array[], lrs: number[], b1: number, b2: number, eps: number | undefined): Float32Array {
  const opt = tf.train.adam(lrs[0], b1, b2, eps);
  const v = tf.variable(tf.tensor1d(w0));
  for (let k = 0; k < grads.length; k++) {
    // AdamOptimizer reads this.learningRate at every applyGradients (it is protected in the typings).
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

const cases = [
  // epsilon undefined: tfjs uses the backend epsilon, 1e-7 -- the config default.
  { label: 'defaults (lr 0.001, 0.9, 0.999, eps backend)', lrs: Array(STEPS).fill(0.001), b1: 0.9, b2: 0.999, eps: undefined, ruleEps: 1e-7 },
  { label: 'lr 0.05, beta1 0.8, beta2 0.95, eps 1e-3', lrs: Array(STEPS).fill(0.05), b1: 0.8, b2: 0.95, eps: 1e-3, ruleEps: 1e-3 },
  { label: 'lr 0.01, beta1 0.5, beta2 0.9, eps 0.1', lrs: Array(STEPS).fill(0.01), b1: 0.5, b2: 0.9, eps: 0.1, ruleEps: 0.1 },
  { label: 'lr changing every step', lrs: [0.01, 0.002, 0.05, 0.02, 0.001, 0.03, 0.01, 0.04], b1: 0.85, b2: 0.99, eps: 1e-6, ruleEps: 1e-6 },
];

for (const c of cases) {
  test(`adam matches tf.train.adam (${c.label})`, () => {
    const rand = seededRandom(37);
    const w0 = randomUniform(rand, N);
    const grads = Array.from({ length: STEPS }, () => randomUniform(rand, N));
    const expected = tfjsAdam(w0, grads, c.lrs, c.b1, c.b2, c.eps);
    const actual = runRule(makeUpdateRule(optimizerConfig({ name: 'adam', beta1: c.b1, beta2: c.b2, epsilon: c.ruleEps })), w0, grads, c.lrs);
    assertClose(actual, expected, 1e-5, 1e-6, `adam ${c.label}`);
  });
}
