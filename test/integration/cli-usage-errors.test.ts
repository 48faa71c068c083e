import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/run-cli.ts';

test('no command is a usage error with exit code 2', () => {
  const r = runCli([]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /E_USAGE: name a command/);
});

test('an unknown flag is a usage error with exit code 2', () => {
  const r = runCli(['train', 'x.yaml', '--gpu', '1']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /E_USAGE: train: unknown option --gpu: did you mean --gpus\?/);
});

test('a malformed --gpus is named', () => {
  const r = runCli(['train', 'examples/mnist-mlp/experiment.yaml', '--gpus', 'first']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--gpus first: expected "all" or a comma-separated list/);
});
