// Early stopping survives --resume: a run interrupted while its patience is running out (one
// evaluation without an improvement already counted) and resumed stops at the same step as
// the run never interrupted, with the same final/ (restoreBest: the best weights, kept in the
// checkpoint) and the same stop line. Resuming it again says it has finished and does nothing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readTrainerState } from '../../src/coordinator/run/checkpoint.ts';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { interruptAfter, metricsOf, scenario } from '../helpers/eval-watch-fixture.ts';

const dir = tempDir('resume-es');
const over = { training: { batchSize: 8, epochs: 20, seed: 3, earlyStopping: { monitor: 'eval.loss', patience: 2, minDelta: 0.01, restoreBest: true } } };
const config = (name: string) => buildConfig(dir, scenario(dir, name, over), 2);

test('interrupted with one evaluation of patience used and resumed: the same stop step, final/ and stop line', async () => {
  const full = await train(config('full'), silent);
  assert.ok(full.stopped && full.restoredFrom !== null && full.restoredFrom < full.steps, 'the uninterrupted run stops early and restores an earlier step');
  // The evaluation before the stop did not improve (patience 2): cut just after it.
  const cutAt = full.steps - 5 + 2;
  const cut = interruptAfter(cutAt);
  const runDir = path.join(dir, 'cut');
  const first = await train(config('cut'), cut.progress, { signals: cut.signals });
  assert.equal(first.steps, cutAt);
  const saved = readTrainerState(path.join(runDir, 'checkpoints', `step-${cutAt}`)).monitors!.earlyStopping!;
  assert.equal(saved.wait, 1, 'the checkpoint holds the evaluation already counted');
  const resumed = await train(config('cut'), silent, { resume: runDir });
  assert.equal(resumed.steps, full.steps);
  assert.deepEqual(resumed.stopped, full.stopped);
  assert.equal(resumed.restoredFrom, full.restoredFrom);
  assert.deepEqual(fs.readFileSync(path.join(runDir, 'final', 'weights.bin')), fs.readFileSync(path.join(full.runDir, 'final', 'weights.bin')));
  // The cut run's metrics also record its interruption (a stop line of the signal, at the cut).
  const stops = metricsOf(runDir).of('stop');
  assert.deepEqual(
    stops.filter((l) => !('reason' in l)).map((l) => [l.step, l.message]),
    [[cutAt, 'stopped by SIGINT']],
  );
  assert.deepEqual(
    stops.filter((l) => 'reason' in l),
    metricsOf(full.runDir).of('stop'),
  );
  assert.deepEqual(Buffer.from(resumed.weights.buffer), Buffer.from(full.weights.buffer));

  const lines = fs.readFileSync(path.join(runDir, 'metrics.jsonl'));
  const again = await train(config('cut'), silent, { resume: runDir });
  assert.equal(again.alreadyFinished, true);
  assert.deepEqual(again.stopped, full.stopped);
  assert.deepEqual(fs.readFileSync(path.join(runDir, 'metrics.jsonl')), lines, 'nothing is written');
});
