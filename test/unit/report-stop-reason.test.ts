// `mgpu-train report` reads the lines of best/, early stopping, the plateau and restoreBest
// (none counted as malformed) and says in the summary why the run stopped, which step best/
// holds, when the rate was lowered and which step's weights final/ holds.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { readRun } from '../../src/report/read-run.ts';
import { summarize, summaryRows, summaryText } from '../../src/report/summary.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-report-stop-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const train = (step: number, lr: number) => ({
  type: 'train',
  step,
  epoch: Math.floor((step - 1) / 5),
  loss: 1 / step,
  lr,
  samples_per_sec: 100,
  compute_max_ms: 1,
  compute_min_ms: 1,
  sync_ms: 1,
  data_ms: 1,
  step_ms: 4,
  grad_norm: 1,
});
const evalLine = (step: number, loss: number) => ({ type: 'eval', step, epoch: step / 5 - 1, samples: 20, loss, accuracy: 0.5, top_k: null, k: 5, mae: 0.1 });
const message = 'early stopping after step 20: eval.loss has not improved for 2 evaluations (patience 2); best 0.4 at step 10';
const LINES = [
  train(5, 0.1),
  evalLine(5, 0.5),
  { type: 'best', step: 5, epoch: 0, monitor: 'eval.loss', mode: 'min', value: 0.5, previous_step: null, previous_value: null },
  train(10, 0.1),
  evalLine(10, 0.4),
  { type: 'best', step: 10, epoch: 1, monitor: 'eval.loss', mode: 'min', value: 0.4, previous_step: 5, previous_value: 0.5 },
  train(15, 0.1),
  evalLine(15, 0.45),
  { type: 'lr', step: 15, epoch: 2, monitor: 'eval.loss', value: 0.45, from: 0.1, to: 0.05 },
  train(20, 0.05),
  evalLine(20, 0.46),
  {
    type: 'stop',
    step: 20,
    epoch: 3,
    reason: 'early_stopping',
    monitor: 'eval.loss',
    mode: 'min',
    patience: 2,
    min_delta: 0,
    wait: 2,
    best_step: 10,
    best_value: 0.4,
    message,
  },
  { type: 'restore', step: 20, from_step: 10, monitor: 'eval.loss', value: 0.4 },
];

test('the summary names the stop, best/, the lowered rate and the restored weights', async () => {
  fs.writeFileSync(path.join(dir, 'metrics.jsonl'), LINES.map((l) => JSON.stringify(l) + '\n').join(''));
  fs.mkdirSync(path.join(dir, 'final'));
  fs.writeFileSync(path.join(dir, 'final', 'model.json'), '{}');
  const run = await readRun(dir);
  assert.equal(run.unreadable.length, 0, 'the new lines are read, not counted as malformed');
  const s = summarize(run);
  assert.deepEqual(s.stopped, { step: 20, message });
  assert.deepEqual(s.best, { step: 10, monitor: 'eval.loss', value: 0.4 });
  assert.deepEqual(s.lrChanges, [{ step: 15, from: 0.1, to: 0.05 }]);
  assert.equal(s.restoredFrom, 10);
  const rows = Object.fromEntries(summaryRows(s).map((r) => [r.label, r.value]));
  assert.equal(rows['stopped early'], 'after step 20: eval.loss has not improved for 2 evaluations (patience 2); best 0.4 at step 10');
  assert.match(rows['best checkpoint']!, /^step 10, eval\.loss 0\.4\d* \(best\/\)$/);
  assert.equal(rows['lr lowered'], '1 time (plateau): step 15 0.1 → 0.05');
  assert.match(rows['final model']!, /final\/model\.json: the weights of step 10 \(restoreBest\)$/);
  assert.ok(summaryText(s).some((l) => /stopped early\s+after step 20/.test(l)));
});
