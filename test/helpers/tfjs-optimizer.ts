// For the optimizer tests that ask for tfjs's own bits: fixed gradients of every kind of value,
// tfjs's optimizer run over them on one variable (cpu backend, in the test process), the
// project's rule run over the same ones, and a comparison of float32 bit patterns.
//
//   mixedGradients()  STEPS vectors mixing ordinary, large, tiny, subnormal, zero and negative values
//   tfjsSteps()       a tf.train.* optimizer's weights and slot variables after the steps
//   ruleSteps()       an UpdateRule's weights and slots after the same steps (t = 1, 2, ...)
//   assertSameBits()  every float32 identical (NaN equals NaN; -0 and +0 differ)
//   tfjsRun()         the harness in one call: seeded weights and gradients, tfjs's optimizer over them
//   assertRuleGivesTfjsBits()  an UpdateRule over a tfjsRun's inputs gives its bits

import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import type { UpdateRule } from '../../src/coordinator/engine/optimizers/update-rule.ts';
import { makeSlots, randomUniform, seededRandom } from './close.ts';

// IS_TEST only silences tfjs's "install tfjs-node" banner on first use of the cpu backend.
tf.env().set('IS_TEST', true);

export interface Trained {
  weights: Float32Array;
  slots: Float32Array[];
}

/**
 * `steps` gradients of n values each, every value drawn at random from: uniform in [-1, 1),
 * large (±1e2 .. ±1e6), small (±1e-9 .. ±1e-6, about epsilon), tiny (±1e-30 .. ±1e-20, whose
 * squares underflow float32), subnormal (±1e-40), exactly 0, exactly -0.
 */
export function mixedGradients(rand: () => number, n: number, steps: number): Float32Array[] {
  const sign = () => (rand() < 0.5 ? -1 : 1);
  const logUniform = (lo: number, hi: number) => sign() * 10 ** (lo + (hi - lo) * rand());
  const kinds = [() => 2 * rand() - 1, () => logUniform(2, 6), () => logUniform(-9, -6), () => logUniform(-30, -20), () => sign() * 1e-40, () => 0, () => -0];
  return Array.from({ length: steps }, () => Float32Array.from({ length: n }, () => kinds[Math.floor(rand() * kinds.length)]!()));
}

type AnyOptimizer = tf.Optimizer & { setLearningRate?: (lr: number) => void };

/**
 * Runs `opt` from weights w0 over grads[k] with learning rate lrs[k] (`before`, when given, runs
 * on the variable ahead of each update); returns the weights and the optimizer's slot variables
 * in the order of its getWeights() (the project's slot order), then disposes the optimizer.
 */
export async function tfjsSteps(
  opt: AnyOptimizer,
  w0: Float32Array,
  grads: readonly Float32Array[],
  lrs: readonly number[],
  before?: (v: tf.Variable, k: number) => void,
): Promise<Trained> {
  const v = tf.variable(tf.tensor1d(w0));
  for (let k = 0; k < grads.length; k++) {
    // SGD and momentum keep -lr as a scalar (setLearningRate); the others read this.learningRate
    // at every applyGradients (protected in the typings).
    if (opt.setLearningRate) opt.setLearningRate(lrs[k]!);
    else (opt as unknown as { learningRate: number }).learningRate = lrs[k]!;
    before?.(v, k);
    const g = tf.tensor1d(grads[k]!);
    opt.applyGradients([{ name: v.name, tensor: g }]);
    g.dispose();
  }
  const weights = Float32Array.from(v.dataSync());
  const named = await opt.getWeights();
  const slots = named.slice(1).map((s) => Float32Array.from(s.tensor.dataSync() as Float32Array)); // [0] is the iteration count
  v.dispose();
  opt.dispose();
  return { weights, slots };
}

/** Applies `rule` from w0 (and `from`'s slots, when given) with t = firstT, firstT + 1, ... */
export function ruleSteps(rule: UpdateRule, w0: Float32Array, grads: readonly Float32Array[], lrs: readonly number[], from?: Trained, firstT = 1): Trained {
  const weights = Float32Array.from(w0);
  const slots = from ? from.slots.map((s) => Float32Array.from(s)) : makeSlots(rule, w0.length);
  for (let k = 0; k < grads.length; k++) rule.apply(weights, grads[k]!, slots, lrs[k]!, firstT + k);
  return { weights, slots };
}

/** Every value the same float32 (bit for bit; any NaN equals any NaN). */
export function assertSameBits(actual: Float32Array, expected: Float32Array, what: string): void {
  assert.equal(actual.length, expected.length, `${what}: length ${actual.length} != expected ${expected.length}`);
  const a32 = new Uint32Array(actual.buffer, actual.byteOffset, actual.length);
  const e32 = new Uint32Array(expected.buffer, expected.byteOffset, expected.length);
  let bad = 0;
  let first = -1;
  for (let i = 0; i < expected.length; i++) {
    if (a32[i] === e32[i] || (Number.isNaN(actual[i]) && Number.isNaN(expected[i]))) continue;
    if (first < 0) first = i;
    bad++;
  }
  if (bad > 0) {
    const hex = (x: number) => `0x${x.toString(16).padStart(8, '0')}`;
    assert.fail(
      `${what}: ${bad} of ${expected.length} float32 values differ from tfjs's; first at index ${first}: ` +
        `actual ${actual[first]} (${hex(a32[first]!)}), expected ${expected[first]} (${hex(e32[first]!)})`,
    );
  }
}

/** assertSameBits over the weights and every slot. */
export function assertSameTrained(actual: Trained, expected: Trained, what: string): void {
  assert.equal(actual.slots.length, expected.slots.length, `${what}: ${actual.slots.length} slots, tfjs has ${expected.slots.length}`);
  assertSameBits(actual.weights, expected.weights, `${what}: weights`);
  actual.slots.forEach((s, k) => assertSameBits(s, expected.slots[k]!, `${what}: slot ${k}`));
}

/** The inputs a comparison with tfjs draws (weights w0 and a gradient per learning rate), and what tfjs's optimizer made of them. */
export interface TfjsRun {
  w0: Float32Array;
  grads: Float32Array[];
  lrs: readonly number[];
  expected: Trained;
}

/**
 * From seededRandom(seed): w0, n values uniform in `w0Range`, then a gradient per learning rate
 * (mixedGradients unless `grads` draws them); then tfjsSteps of `opt` over them (`before` as there).
 */
export async function tfjsRun(
  opt: AnyOptimizer,
  d: { seed: number; n: number; lrs: readonly number[]; w0Range?: [number, number]; grads?: (rand: () => number) => Float32Array[] },
  before?: (v: tf.Variable, k: number) => void,
): Promise<TfjsRun> {
  const rand = seededRandom(d.seed);
  const w0 = randomUniform(rand, d.n, ...(d.w0Range ?? [-1, 1]));
  const grads = d.grads ? d.grads(rand) : mixedGradients(rand, d.n, d.lrs.length);
  return { w0, grads, lrs: d.lrs, expected: await tfjsSteps(opt, w0, grads, d.lrs, before) };
}

/** `rule` run over `run`'s weights, gradients and learning rates gives tfjs's weights and slots, bit for bit. */
export function assertRuleGivesTfjsBits(rule: UpdateRule, run: TfjsRun, what: string): void {
  assertSameTrained(ruleSteps(rule, run.w0, run.grads, run.lrs), run.expected, what);
}
