// schedule 'plateau' lowers the learning rate as Keras's ReduceLROnPlateau does at each
// evaluation. Its rule is applied here, independently, to the eval losses the run logged; the
// rate of every step (a train line per step) must be the one the rule gives after the
// evaluations before that step, exactly. The scenario must reduce the rate several times,
// reach minLr (the last reduction clamped to it, then held there), pass an evaluation the
// cooldown leaves uncounted, and reduce at the evaluation where a cooldown runs out (Keras
// counts it: cooldown 2 leaves one evaluation uncounted, not two), or the test would not tell
// those apart. No comparison is within float noise of its threshold. The same on 1 and 2 workers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { kerasPlateau, metricsOf, scenario } from '../helpers/eval-watch-fixture.ts';

const dir = tempDir('plateau');
const P = { factor: 0.7, patience: 1, cooldown: 2, minLr: 0.1, minDelta: 0.005 };
const over = { eval: { every: 2 }, schedule: { name: 'plateau', ...P } };
const lrsByWorkers: number[][] = [];

for (const workers of [2, 1]) {
  test(`the rate of every step follows Keras's ReduceLROnPlateau over the logged eval losses (${workers} worker${workers > 1 ? 's' : ''})`, async (t) => {
    const r = await train(buildConfig(dir, scenario(dir, `plateau-n${workers}`, over), workers), silent);
    const m = metricsOf(r.runDir);
    const events = kerasPlateau(
      m.evals.map((l) => l.loss as number),
      0.5,
      { mode: 'min', ...P },
    );
    const reductions = events.filter((e) => e.reduced);
    t.diagnostic(`rate after each evaluation: ${m.evals.map((l, i) => `${l.step}:${events[i]!.lr}`).join(' ')}`);
    assert.ok(reductions.length >= 3, `${reductions.length} reductions`);
    assert.equal(reductions.at(-1)!.lr, P.minLr, 'the last reduction is clamped to minLr');
    assert.ok(
      events.some((e) => e.heldAtMinLr),
      'patience runs out at minLr, with no reduction',
    );
    assert.ok(
      events.some((e) => e.inCooldownUncounted),
      'an evaluation without improvement falls in a cooldown',
    );
    assert.ok(
      events.some((e) => e.countedAsCooldownEnds && e.reduced),
      'the rate is lowered at the evaluation where a cooldown runs out',
    );
    // How close each value came to deciding the other way: 1 and 2 workers differ by float noise only.
    let best = Infinity;
    const margin = Math.min(
      ...m.evals.map((l) => {
        const v = l.loss as number;
        const d = Math.abs(v - (best - P.minDelta));
        best = Math.min(best, v < best - P.minDelta ? v : best);
        return d;
      }),
    );
    t.diagnostic(`closest call: ${margin.toExponential(2)}`);
    assert.ok(margin > 1e-5, `an eval loss within ${margin} of its threshold: the scenario is too close to call`);

    // Step s (1-based, a train line each) runs with the rate after the evaluations at steps < s.
    const expected = m.train.map((l) => {
      const before = m.evals
        .map((e, i) => [e.step, i] as const)
        .filter(([at]) => at < l.step)
        .at(-1);
      return before ? events[before[1]]!.lr : 0.5;
    });
    const logged = m.train.map((l) => l.lr as number);
    assert.equal(logged.length, 60);
    assert.deepEqual(logged, expected);
    assert.deepEqual(
      m.of('lr').map((l) => [l.step, l.from, l.to]),
      m.evals.flatMap((e, i) => (events[i]!.reduced ? [[e.step, i ? events[i - 1]!.lr : 0.5, events[i]!.lr]] : [])),
    );
    lrsByWorkers.push(logged);
  });
}

test('1 and 2 workers lower the rate at the same steps', () => {
  assert.equal(lrsByWorkers.length, 2);
  assert.deepEqual(lrsByWorkers[0], lrsByWorkers[1]);
});
