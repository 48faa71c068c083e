// A custom metric that fails in the workers is the user's error: exit 2, an E_METRIC message
// naming metrics[i], the module and the rank, no stack trace. One that fails on its start-up
// check (a one-row batch of zeros) stops the run before the first step; one that fails only on
// real eval batches stops it at the evaluation, with the trained steps kept in a checkpoint
// for --resume. Also: topK with no more classes than eval.topK is refused once the model is known.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('metrics-fails');
const model = writeModelModule(dir, 'mlp');
const train = writeDataset(dir, 'train', 20, 'onehot', 611);
const evalSet = writeDataset(dir, 'eval', 13, 'onehot', 612);
fs.writeFileSync(path.join(dir, 'at-start.mjs'), 'export default (yTrue, yPred, tf) => ({ n: yPred });\n');
fs.writeFileSync(
  path.join(dir, 'later.mjs'),
  `export default (yTrue, yPred, tf) => {
  if (yTrue.shape[0] > 1) throw new Error('cannot handle ' + yTrue.shape[0] + ' rows');
  return { n: 1 };
};\n`,
);

function run(name: string, extra: object) {
  const file = path.join(dir, `${name}.yaml`);
  fs.writeFileSync(
    file,
    stringify({
      name,
      model: { module: model },
      loss: 'categoricalCrossentropy',
      data: { train, eval: evalSet },
      training: { batchSize: 10, steps: 2 },
      optimizer: { name: 'sgd' },
      eval: { batchSize: 8 },
      ...extra,
    }),
  );
  const runDir = path.join(dir, 'runs', name);
  return { runDir, ...runCli(['train', file, '--simulate', '2', '--backend', 'cpu', '--run-dir', runDir]) };
}

test('a metric module that fails its start-up check: exit 2 before the first step', () => {
  const r = run('at-start', { metrics: ['accuracy', { module: './at-start.mjs' }] });
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /error E_METRIC: rank \d \(GPU [^)]*\): metrics\[1\] \(.*at-start\.mjs\): the sum "n" is a tensor of shape \[1,3\] on a one-row batch of zeros \(the check at start-up\), not a scalar/,
  );
  assert.match(r.stderr, /hint: sum it/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'a stack trace');
  assert.ok(!fs.existsSync(path.join(r.runDir, 'checkpoints')), 'no step was trained');
});

test('a metric module that fails on a real eval batch: exit 2, and the trained steps are checkpointed', () => {
  const r = run('later', { metrics: [{ module: './later.mjs' }] });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /error E_METRIC: rank \d \(GPU [^)]*\): metrics\[0\] \(.*later\.mjs\) threw: cannot handle \d rows/);
  assert.match(r.stderr, /the last completed step \(2\) is in .*step-2; continue with --resume/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'a stack trace');
  assert.ok(fs.existsSync(path.join(r.runDir, 'checkpoints', 'step-2', 'model.json')));
});

test('topK with no more classes than eval.topK: exit 2 naming eval.topK, before the first step', () => {
  const r = run('topk', { metrics: ['topK'], eval: { batchSize: 8, topK: 3 } });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /error E_CONFIG: eval\.topK: is 3, but metrics\[0\] topK needs more classes than k and the model has 3/);
  assert.match(r.stderr, /hint: set eval\.topK to at most 2/);
  assert.ok(!fs.existsSync(path.join(r.runDir, 'checkpoints')));
});
