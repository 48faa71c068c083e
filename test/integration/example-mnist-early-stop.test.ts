// The example of a long run (examples/mnist-early-stop) does what its comments promise on 2
// simulated GPUs: an eval after each epoch with its metrics, best/ kept, and early stopping that
// ends the run long before its 40 epochs with final/ holding the best evaluation's weights.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/mnist-early-stop/experiment.yaml', import.meta.url));

test('examples/mnist-early-stop stops early with the best weights in final/', () => {
  const runDir = path.join(tempDir('example'), 'run');
  const r = runCli(['train', EXAMPLE, '--simulate', '2', '--set', `runDir=${runDir}`], { timeoutMs: 300_000 });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const lines = fs
    .readFileSync(path.join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const evals = lines.filter((l) => l.type === 'eval') as Array<{ step: number; loss: number; accuracy: number; metrics: Record<string, number> }>;
  const stepsPerEpoch = 30;
  assert.deepEqual(
    evals.map((e) => e.step),
    evals.map((_, i) => (i + 1) * stepsPerEpoch),
    'one eval at the end of each epoch',
  );
  for (const e of evals) assert.deepEqual(Object.keys(e.metrics).sort(), ['accuracy', 'auc', 'f1_macro']);
  const stop = lines.find((l) => l.type === 'stop');
  assert.ok(stop, 'a stop line in metrics.jsonl');
  const last = evals[evals.length - 1]!;
  assert.ok(last.step < 40 * stepsPerEpoch, `stopped at step ${last.step}, before the 40 epochs`);
  // Early stopping on eval.loss with patience 3: the best loss is 3 evaluations before the last.
  const best = evals.reduce((b, e) => (e.loss < b.loss - 0.001 ? e : b));
  assert.equal(best.step, evals[evals.length - 4]!.step);
  assert.match(r.stdout, new RegExp(`restoreBest: final/ holds the weights of step ${best.step} `));
  assert.ok(Math.max(...evals.map((e) => e.accuracy)) > 0.9, 'the MLP reaches over 90% on the held-out digits');
  assert.ok(fs.existsSync(path.join(runDir, 'best', 'model.json')));
  assert.ok(fs.existsSync(path.join(runDir, 'final', 'model.json')));
});
