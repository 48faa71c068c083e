// `mgpu-train benchmark` with a wrong argument: exit 2, E_USAGE naming the flag and what it
// takes, before any worker or baseline starts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.ts';

const CONFIG = 'examples/mnist-mlp/experiment.yaml';
const refused = (args: string[], message: RegExp, hint?: RegExp) => {
  const r = runCli(['benchmark', ...args]);
  assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code}\n${r.stdout}${r.stderr}`);
  assert.match(r.stderr, message);
  if (hint) assert.match(r.stderr, hint);
  assert.doesNotMatch(r.stdout, /plain tfjs, 1 process/, 'the baseline started');
};

test('neither a network nor --config, and both', () => {
  refused([], /^error E_USAGE: name a network or give --config$/m, /hint: mgpu-train benchmark <net> \.\.\. or mgpu-train benchmark --config exp\.yaml/);
  refused(['mlp', '--config', CONFIG], /^error E_USAGE: a network \(mlp\) and --config examples\/mnist-mlp\/experiment\.yaml both given$/m);
});

test('a mistyped network: refused with the nearest name and the list', () => {
  refused(
    ['resnet5O'],
    /^error E_USAGE: no network named "resnet5O": did you mean resnet50\?$/m,
    /hint: the networks are resnet18, .*mgpu-train nets lists them/,
  );
});

test('--workers: not a list of positive integers, or a count twice', () => {
  refused(
    ['--config', CONFIG, '--workers', '1,0'],
    /^error E_USAGE: --workers "1,0": "0" is not a positive integer$/m,
    /hint: a comma-separated list of worker counts, e\.g\. --workers 1,2,4/,
  );
  refused(['--config', CONFIG, '--workers', 'two'], /^error E_USAGE: --workers "two": "two" is not a positive integer$/m);
  refused(['--config', CONFIG, '--workers', '1,2,1'], /^error E_USAGE: --workers "1,2,1": 1 is listed twice$/m);
});

test('--batch, --steps and --warmup below their least, or not numbers', () => {
  refused(['--config', CONFIG, '--batch', '0'], /^error E_USAGE: --batch "0": expected an integer >= 1$/m, /hint: the samples each worker takes per step/);
  refused(['--config', CONFIG, '--batch', '8x'], /^error E_USAGE: --batch "8x": expected an integer >= 1$/m);
  refused(['--config', CONFIG, '--steps', '1'], /^error E_USAGE: --steps "1": expected an integer >= 2$/m);
  refused(['--config', CONFIG, '--warmup', '0'], /^error E_USAGE: --warmup "0": expected an integer >= 1$/m, /hint: steps run before measuring/);
});

test('--json into a missing directory, --simulate with a GPU backend, an unknown backend or flag', () => {
  refused(
    ['--config', CONFIG, '--json', '/nonexistent-mgpu/out.json'],
    /^error E_USAGE: --json \/nonexistent-mgpu\/out\.json: the directory \/nonexistent-mgpu does not exist$/m,
  );
  refused(['--config', CONFIG, '--simulate', '--backend', 'webgpu'], /^error E_USAGE: --simulate runs on a CPU backend, and --backend webgpu is a GPU one$/m);
  refused(
    ['--config', CONFIG, '--backend', 'wsam'],
    /^error E_USAGE: --backend "wsam" is not a backend: did you mean wasm\?$/m,
    /hint: the backends are auto, .*, cpu$/m,
  );
  refused(['--config', CONFIG, '--worker', '2'], /^error E_USAGE: benchmark: unknown option --worker: did you mean --workers\?$/m);
});

test('a config that does not load: its own error, exit 2', () => {
  const r = runCli(['benchmark', '--config', 'no-such-experiment.yaml']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /no-such-experiment\.yaml/);
});
