// The plateau schedule's counters survive --resume: a run interrupted one evaluation before its
// first reduction (patience 3, wait 2 saved, the rate not lowered yet) and resumed lowers the rate
// after the same evaluation as the run never interrupted. A fresh state (best unset, wait 0)
// would count the next evaluation as an improvement and reduce later.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { readTrainerState } from '../../src/coordinator/run/checkpoint.ts';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { interruptAfter, metricsOf, scenario } from '../helpers/eval-watch-fixture.ts';

const dir = tempDir('resume-plateau-wait');
const over = {
  training: { batchSize: 8, steps: 40, seed: 3 },
  eval: { every: 2 },
  schedule: { name: 'plateau', factor: 0.5, patience: 3, cooldown: 0, minLr: 0.01, minDelta: 0.01 },
};
const config = (name: string) => buildConfig(dir, scenario(dir, name, over), 2);

test('interrupted with wait 2 of patience 3 and resumed: the same reductions at the same steps, the same final weights', async (t) => {
  const full = await train(config('full'), silent);
  const reductions = metricsOf(full.runDir).of('lr');
  assert.ok(reductions.length >= 1, 'the fixture lowers the rate at least once');
  const evalSteps = metricsOf(full.runDir).evals.map((l) => l.step);
  const before = evalSteps[evalSteps.indexOf(reductions[0]!.step) - 1]!;
  const cutAt = before + 1; // between the evaluation before the reduction and the reduction's
  t.diagnostic(`reductions at steps ${reductions.map((l) => l.step).join(', ')}; cut after step ${cutAt}`);
  const cut = interruptAfter(cutAt);
  const runDir = path.join(dir, 'cut');
  await train(config('cut'), cut.progress, { signals: cut.signals });
  const saved = readTrainerState(path.join(runDir, 'checkpoints', `step-${cutAt}`)).monitors!.plateau!;
  assert.equal(saved.wait, 2, 'cut one evaluation before the reduction');
  assert.equal(saved.lr, reductions[0]!.from, 'the rate not lowered yet');
  const resumed = await train(config('cut'), silent, { resume: runDir });
  assert.deepEqual(metricsOf(runDir).of('lr'), reductions);
  const lrs = (d: string) => metricsOf(d).train.map((l) => [l.step, l.lr]);
  assert.deepEqual(lrs(runDir), lrs(full.runDir));
  assert.deepEqual(Buffer.from(resumed.weights.buffer), Buffer.from(full.weights.buffer));
});
