// training.earlyStopping.restoreBest: final/ (and TrainResult.weights) get the weights of the
// best evaluation, as Keras 3 restores them at the end of training, whether the run stopped
// early or ran to its end. They must be exactly the weights of the checkpoint of that step;
// the last checkpoint keeps the last step's weights (the run's state, to continue from).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { kerasEarlyStopping, metricsOf, scenario, weightsBin } from '../helpers/eval-watch-fixture.ts';

const dir = tempDir('restore-best');
const bin = (runDir: string, sub: string) => fs.readFileSync(path.join(runDir, sub, 'weights.bin'));

async function run(name: string, patience: number, epochs: number) {
  const es = { monitor: 'eval.loss', patience, minDelta: 0.01, restoreBest: true };
  const r = await train(
    buildConfig(dir, scenario(dir, name, { training: { batchSize: 8, epochs, seed: 3, earlyStopping: es }, checkpoint: { every: 'epoch', keep: 100 } }), 2),
    silent,
  );
  const m = metricsOf(r.runDir);
  const rule = kerasEarlyStopping(
    m.evals.map((l) => l.loss as number),
    { mode: 'min', patience, minDelta: 0.01 },
  );
  return { r, m, bestStep: m.evals[rule.best]!.step, rule };
}

test('stopped early: final/ holds the weights of the best evaluation, not those of the stop', async () => {
  const { r, m, bestStep, rule } = await run('stopped', 2, 20);
  assert.ok(rule.stop >= 0 && r.stopped, 'the run stopped early');
  assert.ok(bestStep < r.steps);
  assert.deepEqual(bin(r.runDir, 'final'), bin(r.runDir, `checkpoints/step-${bestStep}`), "final/ is the best step's checkpoint");
  assert.notDeepEqual(bin(r.runDir, 'final'), bin(r.runDir, `checkpoints/step-${r.steps}`));
  assert.deepEqual(Buffer.from(r.weights.buffer), Buffer.from(weightsBin(path.join(r.runDir, 'final')).buffer), "TrainResult.weights are final/'s");
  assert.equal(r.restoredFrom, bestStep);
  assert.deepEqual(
    m.of('restore').map((l) => [l.step, l.from_step]),
    [[r.steps, bestStep]],
  );
});

test("run to its end: final/ still holds the best evaluation's weights", async () => {
  const { r, bestStep, rule } = await run('to-the-end', 50, 12);
  assert.equal(rule.stop, -1);
  assert.equal(r.stopped, null);
  assert.equal(r.steps, 60);
  assert.ok(bestStep < 60, 'the last evaluation is not the best');
  assert.deepEqual(bin(r.runDir, 'final'), bin(r.runDir, `checkpoints/step-${bestStep}`));
  assert.equal(r.restoredFrom, bestStep);
});
