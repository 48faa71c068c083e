// --simulate takes a positive integer: anything else is a usage error (exit 2) that shows what
// was given, and a bare --simulate is not silently "every visible GPU".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.ts';

const CONFIG = 'examples/mnist-mlp/experiment.yaml';

test('--simulate abc says what was given and what is expected', () => {
  const r = runCli(['train', CONFIG, '--simulate', 'abc']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^error E_USAGE: --simulate "abc": expected a positive integer \(the number of simulated GPUs\)$/m);
  assert.doesNotMatch(r.stderr, /NaN/);
});

test('--simulate 0, -1 and 1.5 are refused the same way', () => {
  for (const n of ['0', '-1', '1.5']) {
    const r = runCli(['train', CONFIG, `--simulate=${n}`]);
    assert.equal(r.code, 2, `${n}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`error E_USAGE: --simulate "${n.replace('.', '\\.')}": expected a positive integer`));
  }
});

test('a bare --simulate is an error, at the end or before another flag', () => {
  for (const args of [['--simulate'], ['--simulate', '--backend', 'cpu']]) {
    const r = runCli(['train', CONFIG, ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /error E_USAGE: --simulate needs the number of simulated GPUs\n {2}hint: e\.g\. --simulate 2/);
    assert.doesNotMatch(r.stdout, /step \d/, 'it trained');
  }
});
