// The plateau schedule survives --resume: a run interrupted just after a reduction of the
// rate (its cooldown running) and resumed trains every later step at the same rate and ends
// with the same weights, bit for bit, as the run never interrupted; its rate, best value and
// counters are in the checkpoint.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { readTrainerState } from '../../src/coordinator/run/checkpoint.ts';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { interruptAfter, metricsOf, scenario } from '../helpers/eval-watch-fixture.ts';

const dir = tempDir('resume-plateau');
const over = { eval: { every: 2 }, schedule: { name: 'plateau', factor: 0.5, patience: 2, cooldown: 2, minLr: 0.1, minDelta: 0.01 } };
const config = (name: string) => buildConfig(dir, scenario(dir, name, over), 2);

test('interrupted in a cooldown after a reduction and resumed: the same rate at every step, the same final weights', async () => {
  const full = await train(config('full'), silent);
  const reductions = metricsOf(full.runDir).of('lr');
  assert.ok(reductions.length >= 2);
  const cutAt = reductions[0]!.step + 1;
  const cut = interruptAfter(cutAt);
  const runDir = path.join(dir, 'cut');
  await train(config('cut'), cut.progress, { signals: cut.signals });
  const saved = readTrainerState(path.join(runDir, 'checkpoints', `step-${cutAt}`)).monitors!.plateau!;
  assert.equal(saved.lr, reductions[0]!.to);
  assert.ok(saved.cooldownCounter > 0, 'cut in a cooldown');
  const resumed = await train(config('cut'), silent, { resume: runDir });
  const lrs = (runDir: string) => metricsOf(runDir).train.map((l) => [l.step, l.lr]);
  assert.deepEqual(lrs(runDir), lrs(full.runDir));
  assert.deepEqual(metricsOf(runDir).of('lr'), reductions);
  assert.deepEqual(Buffer.from(resumed.weights.buffer), Buffer.from(full.weights.buffer));
});
