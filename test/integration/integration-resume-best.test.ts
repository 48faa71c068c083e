// checkpoint.best survives --resume byte for byte: a run interrupted after its best
// evaluation and resumed ends with the same best/ and best-ema/ (weights, model.json,
// best.json), the same 'best' lines and the same final weights as the run never interrupted,
// because the best value, its step and its weights are in the checkpoint. A resume from a
// checkpoint older than best/ (as after a crash) puts back the best of that checkpoint.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readTrainerState } from '../../src/coordinator/run/checkpoint.ts';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { interruptAfter, interruptAtOnce, metricsOf, scenario } from '../helpers/eval-watch-fixture.ts';

const dir = tempDir('resume-best');
const over = { training: { batchSize: 8, epochs: 12, seed: 3, ema: 0.9 }, checkpoint: { every: 'epoch', keep: 100, best: { monitor: 'eval.accuracy' } } };
const config = (name: string) => buildConfig(dir, scenario(dir, name, over), 2);
const files = (runDir: string) =>
  Object.fromEntries(
    ['best', 'best-ema'].flatMap((d) => ['model.json', 'weights.bin', 'best.json'].map((f) => [`${d}/${f}`, fs.readFileSync(path.join(runDir, d, f))])),
  );
const bestLines = (runDir: string) => metricsOf(runDir).of('best');

test("interrupted after its best evaluation and resumed: best/ and best-ema/ are byte-identical to the uninterrupted run's", async () => {
  const full = await train(config('full'), silent);
  const bestStep = full.best!.step;
  const cut = interruptAfter(bestStep + 7); // past the best, and past an evaluation that ties it (accuracy)
  const runDir = path.join(dir, 'cut');
  const first = await train(config('cut'), cut.progress, { signals: cut.signals });
  assert.equal(first.interrupted, 'SIGINT');
  assert.equal(readTrainerState(path.join(runDir, 'checkpoints', `step-${first.steps}`)).monitors?.best?.step, bestStep, 'the checkpoint holds the best step');
  const resumed = await train(config('cut'), silent, { resume: runDir });
  assert.equal(resumed.steps, full.steps);
  assert.deepEqual(resumed.best, full.best);
  assert.deepEqual(files(runDir), files(full.runDir));
  assert.deepEqual(bestLines(runDir), bestLines(full.runDir));
  assert.deepEqual(Buffer.from(resumed.weights.buffer), Buffer.from(full.weights.buffer));
});

test("a resume from a checkpoint older than best/ puts back that checkpoint's best, and then ends as the uninterrupted run", async () => {
  const runDir = path.join(dir, 'cut');
  const older = path.join(runDir, 'checkpoints', 'step-30');
  const then = readTrainerState(older).monitors!.best!;
  assert.ok(
    then.step !== null && then.step < JSON.parse(fs.readFileSync(path.join(runDir, 'best', 'best.json'), 'utf8')).step,
    'best/ is ahead of that checkpoint',
  );
  await train(config('cut'), interruptAtOnce.progress, { resume: older, signals: interruptAtOnce.signals });
  assert.equal(JSON.parse(fs.readFileSync(path.join(runDir, 'best', 'best.json'), 'utf8')).step, then.step);
  assert.deepEqual(
    fs.readFileSync(path.join(runDir, 'best', 'weights.bin')),
    fs.readFileSync(path.join(runDir, 'checkpoints', `step-${then.step}`, 'weights.bin')),
  );
  await train(config('cut'), silent, { resume: older });
  assert.deepEqual(files(runDir), files(path.join(dir, 'full')));
});
