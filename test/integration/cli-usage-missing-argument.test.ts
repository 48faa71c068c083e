// A command without what it needs says what is missing, with the command's usage and an example,
// not yargs' "Not enough non-option arguments" or "Missing required arguments".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.ts';

test('train without a config names it, with usage and an example; exit 2', () => {
  const r = runCli(['train']);
  assert.equal(r.code, 2);
  assert.equal(
    r.stderr,
    'error E_USAGE: train needs the experiment config (a YAML or JSON file)\n' +
      '  hint: usage: mgpu-train train <config> [options]; e.g. mgpu-train train examples/mnist-mlp/experiment.yaml --simulate 2; mgpu-train train --help lists its options\n',
  );
});

test('eval and report without their argument; predict without its required flags', () => {
  assert.match(
    runCli(['eval']).stderr,
    /^error E_USAGE: eval needs the experiment config \(a YAML or JSON file\)\n {2}hint: usage: mgpu-train eval <config> --checkpoint <dir>/,
  );
  assert.match(
    runCli(['report']).stderr,
    /^error E_USAGE: report needs a run directory\n {2}hint: usage: mgpu-train report <run>; e\.g\. mgpu-train report runs\/exp/,
  );
  const r = runCli(['predict', 'exp.yaml', '--checkpoint', 'runs/exp']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error E_USAGE: predict needs --input and --output\n {2}hint: usage: mgpu-train predict <config> --checkpoint <dir> --input /);
  assert.doesNotMatch(r.stderr + runCli(['train']).stderr, /non-option|Missing required/);
});

test('a word too many is named as unexpected, with what the command takes', () => {
  const r = runCli(['train', 'a.yaml', 'b.yaml']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error E_USAGE: train: unexpected argument "b\.yaml" \(train takes <config> \[options\]\)\n/);
});
