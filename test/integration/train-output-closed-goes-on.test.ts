// `mgpu-train train ... | head -3`: stdout closed early (the read end of its pipe destroyed) must
// not end the run; it trains to its last step, writes final/, exits 0, and stderr carries one
// line saying stdout was closed, no stack trace. Likewise a closed stderr (worker output is
// forwarded there: the model module below writes a line to it as each worker builds). And a run
// stopped by Ctrl-C after its stdout closed says on stderr how to continue it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { lastTrainStep, startCli, waitFor, waitForRunStep, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset } from '../helpers/train-fixture.ts';

const dir = tempDir('output-closed');
const STEPS = 40;
const model = path.join(dir, 'noisy-model.mjs');
fs.writeFileSync(
  model,
  `export default function build(tf) {
  console.error('building the model');
  return tf.sequential({ layers: [tf.layers.dense({ inputShape: [6], units: 3, activation: 'softmax' })] });
}
`,
);
const file = writeConfigFile(dir, 'exp', {
  model: { module: model },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 60, 'onehot', 3) },
  training: { batchSize: 12, steps: STEPS, seed: 1 },
  optimizer: { name: 'sgd', learningRate: 0.1 },
  log: { every: 1 },
});
const STACK = /\n\s+at .+:\d+:\d+\)?\n|Unhandled 'error'/;

function finishedWhole(runDir: string, r: { code: number | null; stderr: string }): void {
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, STACK, 'a stack trace on stderr');
  assert.ok(fs.existsSync(path.join(runDir, 'final', 'model.json')), 'no final/model.json');
  assert.equal(lastTrainStep(path.join(runDir, 'metrics.jsonl')), STEPS, 'metrics.jsonl does not reach the last step');
}

test('stdout closed after 3 lines (train | head -3): the run trains to its end, exit 0, no stack trace', async (t) => {
  const runDir = path.join(dir, 'runs', 'stdout');
  const cli = startCli(['train', file, '--simulate', '2', '--backend', 'cpu', '--run-dir', runDir]);
  await waitFor(() => cli.stdout().split('\n').length > 3, 60_000, 'three lines on stdout');
  cli.child.stdout!.destroy();
  const r = await cli.done;
  t.diagnostic(`exit ${r.code}; stderr: ${r.stderr.trim()}`);
  finishedWhole(runDir, r);
  assert.match(r.stderr, /mgpu-train: stdout was closed \(EPIPE\); nothing more is written to it; training goes on to its end/);
});

test('stderr closed from the start: the run trains to its end, exit 0', async () => {
  const runDir = path.join(dir, 'runs', 'stderr');
  const cli = startCli(['train', file, '--simulate', '2', '--backend', 'cpu', '--run-dir', runDir]);
  cli.child.stderr!.destroy();
  const r = await cli.done;
  finishedWhole(runDir, r);
  assert.match(r.stdout, /model saved to /);
  assert.match(r.stdout, /mgpu-train: stderr was closed \(EPIPE\)/, 'stdout does not say stderr was closed');
});

test('stdout closed, then Ctrl-C: exit 130, and the line saying how to continue is on stderr', async () => {
  const runDir = path.join(dir, 'runs', 'stdout-sigint');
  const cli = startCli(['train', file, '--simulate', '2', '--backend', 'cpu', '--run-dir', runDir, '--set', 'training.steps=100000']);
  await waitFor(() => cli.stdout().split('\n').length > 3, 60_000, 'three lines on stdout');
  cli.child.stdout!.destroy();
  await waitForRunStep(cli.done, path.join(runDir, 'metrics.jsonl'), 3);
  process.kill(cli.child.pid!, 'SIGINT');
  const r = await cli.done;
  assert.equal(r.code, 130, r.stderr);
  assert.doesNotMatch(r.stderr, STACK, 'a stack trace on stderr');
  assert.match(r.stderr, /\nSIGINT: finishing this step, then writing a checkpoint/);
  assert.match(r.stderr, /\nstopped by SIGINT after step \d+; checkpoint in \S+ \(continue with --resume\)\n/);
});
