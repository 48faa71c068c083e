// SGD rule == tf.train.sgd, step by step, over random weights and gradients.
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { makeUpdateRule } from '../../src/coordinator/optimizers/index.ts';
import { assertClose, optimizerConfig, randomUniform, runRule, seededRandom } from '../helpers/close.ts';

// IS_TEST only silences tfjs's "install tfjs-node" banner on first use of the cpu backend.
tf.env().set('IS_TEST', true);

const N = 300;
const STEPS = 6;

function tfjsSgd(w0: Float32Array, grads: Float32Array[], lrs: number[]): Float32Array {
  const opt = tf.train.sgd(lrs[0]!);
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

for (const [label, lrs] of [
  ['lr 0.01', Array(STEPS).fill(0.01)],
  ['lr 0.3', Array(STEPS).fill(0.3)],
  ['lr changing every step', [0.1, 0.05, 0.2, 0.001, 0.5, 0.07]],
] as const) {
  test(`sgd matches tf.train.sgd (${label})`, () => {
    const rand = seededRandom(11);
    const w0 = randomUniform(rand, N);
    const grads = Array.from({ length: STEPS }, () => randomUniform(rand, N));
    const expected = tfjsSgd(w0, grads, [...lrs]);
    const actual = runRule(makeUpdateRule(optimizerConfig({ name: 'sgd' })), w0, grads, [...lrs]);
    assertClose(actual, expected, 1e-5, 1e-6, `sgd ${label}`);
  });
}
