// Every rule is elementwise: applying it over [0,k) and [k,n) (as subarray views of the same
// buffers, as the coordinator does) gives exactly the same bits as one call over [0,n).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeUpdateRule } from '../../src/coordinator/engine/optimizers/index.ts';
import type { OptimizerConfig } from '../../src/config/types.ts';
import { makeSlots, optimizerConfig, randomSignedMagnitude, randomUniform, seededRandom } from '../helpers/close.ts';

const configs: Array<[string, OptimizerConfig]> = [
  ['sgd', optimizerConfig({ name: 'sgd' })],
  ['momentum', optimizerConfig({ name: 'momentum' })],
  ['momentum nesterov', optimizerConfig({ name: 'momentum', nesterov: true })],
  ['adam', optimizerConfig({ name: 'adam' })],
  ['adamw', optimizerConfig({ name: 'adamw', weightDecay: 0.1 })],
  ['rmsprop', optimizerConfig({ name: 'rmsprop' })],
  ['rmsprop momentum', optimizerConfig({ name: 'rmsprop', momentum: 0.5 })],
  ['rmsprop centered', optimizerConfig({ name: 'rmsprop', momentum: 0.5, centered: true })],
  ['adagrad', optimizerConfig({ name: 'adagrad' })],
];

const N = 257;
const STEPS = 5;
const lrs = [0.05, 0.01, 0.1, 0.02, 0.03];

const bits = (a: Float32Array) => new Uint32Array(a.buffer, a.byteOffset, a.length);

for (const [label, cfg] of configs) {
  test(`${label}: two slices give the same bits as one call`, () => {
    const rand = seededRandom(61);
    const w0 = randomUniform(rand, N);
    const grads = Array.from({ length: STEPS }, () => randomSignedMagnitude(rand, N));
    const rule = makeUpdateRule(cfg);
    assert.equal(rule.name, cfg.name);

    const wWhole = Float32Array.from(w0);
    const sWhole = makeSlots(rule, N);
    for (let k = 0; k < STEPS; k++) rule.apply(wWhole, grads[k]!, sWhole, lrs[k]!, k + 1);

    for (const cut of [1, 100, N - 1]) {
      const w = Float32Array.from(w0);
      const s = makeSlots(rule, N);
      for (let k = 0; k < STEPS; k++) {
        const g = grads[k]!;
        rule.apply(
          w.subarray(0, cut),
          g.subarray(0, cut),
          s.map((x) => x.subarray(0, cut)),
          lrs[k]!,
          k + 1,
        );
        rule.apply(
          w.subarray(cut),
          g.subarray(cut),
          s.map((x) => x.subarray(cut)),
          lrs[k]!,
          k + 1,
        );
      }
      assert.deepEqual(bits(w), bits(wWhole), `${label}: weights differ with the cut at ${cut}`);
      for (let j = 0; j < s.length; j++) {
        assert.deepEqual(bits(s[j]!), bits(sWhole[j]!), `${label}: slot ${j} differs with the cut at ${cut}`);
      }
      assert.ok(wWhole.every(Number.isFinite), `${label}: non-finite weights`);
    }
  });
}
