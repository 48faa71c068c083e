// training.earlyStopping ends the run after the evaluation where, by Keras's EarlyStopping
// rule, the monitored value has not improved by more than minDelta for `patience`
// evaluations. The rule is applied here, independently, to the eval values the run logged:
// it must fire at the last logged evaluation and not before, and the run must have stopped
// right there, before its planned end, saying why (printed, a 'stop' line, the checkpoint,
// TrainResult). The same stop on 1 and 2 workers.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readTrainerState } from '../../src/coordinator/run/checkpoint.ts';
import { train } from '../../src/coordinator/train.ts';
import { buildConfig, silent, tempDir } from '../helpers/train-fixture.ts';
import { kerasEarlyStopping, metricsOf, scenario } from '../helpers/eval-watch-fixture.ts';

const dir = tempDir('early-stopping');
const ES = { monitor: 'eval.loss', patience: 2, minDelta: 0.01 };
const over = { training: { batchSize: 8, epochs: 20, seed: 3, earlyStopping: ES } };
const stops: number[] = [];

for (const workers of [2, 1]) {
  test(`stops at the evaluation Keras's rule picks from the logged eval losses (${workers} worker${workers > 1 ? 's' : ''})`, async (t) => {
    const printed: string[] = [];
    const cfg = buildConfig(dir, scenario(dir, `es-n${workers}`, over), workers);
    const r = await train(cfg, { ...silent, line: (l) => printed.push(l) });
    const m = metricsOf(r.runDir);
    const losses = m.evals.map((l) => l.loss as number);
    const rule = kerasEarlyStopping(losses, { mode: 'min', patience: ES.patience, minDelta: ES.minDelta });
    t.diagnostic(`eval loss by step: ${m.evals.map((l) => `${l.step}:${(l.loss as number).toFixed(4)}`).join(' ')}`);
    assert.equal(rule.stop, losses.length - 1, `the rule fires at evaluation ${rule.stop} of the ${losses.length} logged`);
    const stepOfStop = m.evals[rule.stop]!.step;
    assert.ok(stepOfStop < 100, 'stopped before the planned 100 steps');
    assert.equal(r.steps, stepOfStop);
    assert.equal(Math.max(...m.train.map((l) => l.step)), stepOfStop, 'no step trained after the stop');
    const bestStep = m.evals[rule.best]!.step;

    const [stop, ...more] = m.of('stop');
    assert.equal(more.length, 0);
    assert.equal(stop!.step, stepOfStop);
    assert.equal(stop!.best_step, bestStep);
    assert.equal(stop!.wait, ES.patience);
    const reason = `early stopping after step ${stepOfStop}: eval.loss has not improved by more than 0.01 for 2 evaluations (patience 2); best ${Number(losses[rule.best]!.toPrecision(6))} at step ${bestStep}`;
    assert.equal(stop!.message, reason);
    assert.ok(printed.includes(reason), 'the reason is printed');
    assert.deepEqual(r.stopped, { step: stepOfStop, reason: 'early_stopping', message: reason });
    assert.deepEqual(readTrainerState(path.join(r.runDir, 'checkpoints', `step-${stepOfStop}`)).stopped, r.stopped);
    assert.ok(fs.existsSync(path.join(r.runDir, 'final', 'model.json')), 'a run stopped early still saves its model');
    assert.equal(m.evals.filter((l) => l.step === stepOfStop).length, 1, 'the last step is not evaluated twice');
    stops.push(stepOfStop);
  });
}

test('1 and 2 workers stop at the same step', () => {
  assert.equal(stops.length, 2);
  assert.equal(stops[0], stops[1]);
});
