// Shared helpers for numeric tests: a tolerance compare that names the first bad index, a small
// seeded PRNG (tests must be reproducible), an optimizer config with the documented defaults,
// and a driver that runs an UpdateRule over N steps.
// Deliberately free of tfjs, so any test may import it cheaply.

import assert from 'node:assert/strict';
import type { UpdateRule } from '../../src/coordinator/engine/optimizers/update-rule.ts';
import type { OptimizerConfig } from '../../src/config/types.ts';

/**
 * Asserts |actual[i] - expected[i]| <= atol + rtol * |expected[i]| for every i (numpy's isclose).
 * Identical values (including equal infinities) pass; any other NaN or infinity fails.
 */
export function assertClose(actual: ArrayLike<number>, expected: ArrayLike<number>, rtol: number, atol: number, what: string): void {
  assert.equal(actual.length, expected.length, `${what}: length ${actual.length} != expected ${expected.length}`);
  let bad = 0;
  let first = -1;
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]!;
    const e = expected[i]!;
    if (Object.is(a, e)) continue;
    const ok = Number.isFinite(a) && Number.isFinite(e) && Math.abs(a - e) <= atol + rtol * Math.abs(e);
    if (!ok) {
      if (first < 0) first = i;
      bad++;
    }
  }
  if (bad > 0) {
    const a = actual[first]!;
    const e = expected[first]!;
    assert.fail(
      `${what}: ${bad} of ${expected.length} values differ beyond rtol ${rtol} / atol ${atol}; ` +
        `first at index ${first}: actual ${a}, expected ${e} (diff ${a - e})`,
    );
  }
}

/** mulberry32: a tiny deterministic PRNG giving floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** n values uniform in [lo, hi). */
export function randomUniform(rand: () => number, n: number, lo = -1, hi = 1): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = lo + (hi - lo) * rand();
  return out;
}

/** n values of magnitude uniform in [lo, hi) with a random sign (keeps away from 0). */
export function randomSignedMagnitude(rand: () => number, n: number, lo = 0.1, hi = 1): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (rand() < 0.5 ? -1 : 1) * (lo + (hi - lo) * rand());
  return out;
}

/** Fresh slot vectors for a rule, each filled with its slotInit value. */
export function makeSlots(rule: UpdateRule, n: number): Float32Array[] {
  assert.equal(rule.slotInit.length, rule.slotCount, `${rule.name}: slotInit.length != slotCount`);
  return rule.slotInit.map((v) => new Float32Array(n).fill(v));
}

/** Applies `rule` from weights w0 with grads[k] and lrs[k] at step t = k + 1; returns the weights. */
export function runRule(rule: UpdateRule, w0: Float32Array, grads: readonly Float32Array[], lrs: readonly number[]): Float32Array {
  const w = Float32Array.from(w0);
  const slots = makeSlots(rule, w.length);
  for (let k = 0; k < grads.length; k++) rule.apply(w, grads[k]!, slots, lrs[k]!, k + 1);
  return w;
}

/** A full OptimizerConfig: the documented defaults (validate.ts's), with `over` applied. */
export function optimizerConfig(over: Partial<OptimizerConfig> & Pick<OptimizerConfig, 'name'>): OptimizerConfig {
  const lr = over.name === 'adam' || over.name === 'adamw' || over.name === 'rmsprop' ? 0.001 : 0.01;
  return {
    learningRate: lr,
    momentum: over.name === 'rmsprop' ? 0 : 0.9,
    nesterov: false,
    beta1: 0.9,
    beta2: 0.999,
    epsilon: 1e-7,
    weightDecay: 0.01,
    decay: 0.9,
    centered: false,
    initialAccumulatorValue: 0.1,
    ...over,
  };
}
