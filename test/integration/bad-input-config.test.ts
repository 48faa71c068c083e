// Bad experiment configs through the CLI: exit 2 before any worker starts, an E_CONFIG message
// that starts with the key path and says what is wrong (and, for typos, what was meant).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bad-config-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(path.join(dir, 'model.mjs'), 'export default (tf) => tf.sequential({ layers: [tf.layers.dense({ inputShape: [4], units: 2 })] });\n');
fs.writeFileSync(path.join(dir, 'x.npy'), '');
fs.writeFileSync(path.join(dir, 'y.npy'), '');

const GOOD = `model: { module: ./model.mjs }
loss: meanSquaredError
data:
  train: { type: npy, features: ./x.npy, labels: ./y.npy }
training: { batchSize: 8, steps: 3 }
optimizer: { name: sgd }
reliability:
  onWorkerFailure: restart
  maxRestarts: 3
  stallFactor: 3
  stallMinSeconds: 1
checkpoint: { every: 10, keep: 2 }
`;

let n = 0;
/** Runs `train` on GOOD with `edit` applied; expects exit 2 and E_CONFIG matching `message`. */
function rejects(edit: (yaml: string) => string, message: RegExp, extra: string[] = []): string {
  const file = path.join(dir, `c${n++}.yaml`);
  fs.writeFileSync(file, edit(GOOD));
  const r = runCli(['train', file, '--simulate', '1', '--backend', 'cpu', '--run-dir', path.join(dir, 'runs', String(n)), ...extra]);
  assert.equal(r.code, 2, `exit code; stderr:\n${r.stderr}`);
  assert.match(r.stderr, message);
  assert.doesNotMatch(r.stderr, /E_INTERNAL|\n\s+at /, 'an internal error or a stack trace');
  assert.ok(!fs.existsSync(path.join(dir, 'runs', String(n))), 'a run directory was created for a rejected config');
  return r.stderr;
}

test('the base config passes validation (it fails later, on its empty data files)', () => {
  const file = path.join(dir, 'good.yaml');
  fs.writeFileSync(file, GOOD);
  const r = runCli(['train', file, '--simulate', '1', '--backend', 'cpu', '--run-dir', path.join(dir, 'runs', 'good')]);
  assert.equal(r.code, 2);
  assert.doesNotMatch(r.stderr, /E_CONFIG/);
  assert.match(r.stderr, /E_DATA: .*x\.npy/);
});

test('an unknown key: its key path, and the key that was meant', () => {
  const err = rejects((y) => y.replace('onWorkerFailure: restart', 'onWorkerFailur: restart'), /error E_CONFIG: reliability\.onWorkerFailur: unknown key/);
  assert.match(err, /did you mean 'onWorkerFailure'\?/);
  const top = rejects((y) => y.replace('checkpoint:', 'checkpoints:'), /error E_CONFIG: checkpoints: unknown key/);
  assert.match(top, /did you mean 'checkpoint'\?/);
  rejects((y) => `${y}"": 1\n`, /error E_CONFIG: "": unknown key/);
});

test('a wrong type: key path, what was expected and what was given', () => {
  rejects(
    (y) => y.replace('maxRestarts: 3', 'maxRestarts: three'),
    /error E_CONFIG: reliability\.maxRestarts: expected an integer >= 0, got "three" \(string\)/,
  );
  rejects(
    (y) => y.replace('every: 10', 'every: [10]'),
    /error E_CONFIG: checkpoint\.every: expected a step count \(an integer >= 0\), 'epoch', or \{ epochs: k \}, got \[10\] \(list\)/,
  );
  rejects((y) => y, /error E_CONFIG: reliability: expected a mapping, got "restart" \(string\)/, ['--set', 'reliability=restart']);
  rejects((y) => y, /error E_CONFIG: reliability\.stallFactor: expected a finite number >= 0, got "fast" \(string\)/, [
    '--set',
    'reliability.stallFactor=fast',
  ]);
});

test('a bad value: key path and the allowed range or choices', () => {
  rejects(
    (y) => y.replace('onWorkerFailure: restart', 'onWorkerFailure: explode'),
    /error E_CONFIG: reliability\.onWorkerFailure: expected one of 'restart', 'reshard', 'abort', got "explode" \(string\)/,
  );
  rejects(
    (y) => y.replace('stallMinSeconds: 1', 'stallMinSeconds: 0'),
    /error E_CONFIG: reliability\.stallMinSeconds: expected a finite number > 0, got 0 \(number\)/,
  );
  rejects((y) => y.replace('keep: 2', 'keep: 0'), /error E_CONFIG: checkpoint\.keep: expected a positive integer, got 0 \(number\)/);
  rejects((y) => y, /error E_CONFIG: reliability\.stepTimeout: expected a finite number > 0, got -5 \(number\)/, ['--set', 'reliability.stepTimeout=-5']);
  rejects((y) => y, /error E_CONFIG: reliability\.onNonFinite: expected one of 'stop', 'skip', got "ignore" \(string\)/, [
    '--set',
    'reliability.onNonFinite=ignore',
  ]);
  rejects((y) => y.replace('batchSize: 8', 'batchSize: .inf'), /error E_CONFIG: training\.batchSize: expected a positive integer, got Infinity \(number\)/);
});

test('a missing model file and a missing data file: key path and the absolute path looked for', () => {
  rejects(
    (y) => y.replace('./model.mjs', './nope.mjs'),
    new RegExp(`error E_CONFIG: model\\.module: file not found: ${dir}/nope\\.mjs\\n\\s+hint: relative paths are resolved against ${dir}`),
  );
  rejects(
    (y) => y.replace('./y.npy', './labels/missing.npy'),
    new RegExp(`error E_CONFIG: data\\.train\\.labels: file not found: ${dir}/labels/missing\\.npy`),
  );
});

test('YAML that only fails when read: an alias with no anchor, and a value that contains itself', () => {
  rejects((y) => y.replace('training: { batchSize: 8, steps: 3 }', 'training: *nope'), new RegExp(`error E_CONFIG: ${dir}/c\\d+\\.yaml: YAML error: .*nope`));
  rejects(
    (y) => y.replace('training: { batchSize: 8, steps: 3 }', 'training: &t { batchSize: *t }'),
    /error E_CONFIG: training\.batchSize: expected a positive integer, got \{\.\.\.\} \(mapping\)/,
  );
  rejects((y) => y, /error E_CONFIG: reliability\.maxRestarts: --set "reliability\.maxRestarts=\*x": the value is not valid YAML: .*x/, [
    '--set',
    'reliability.maxRestarts=*x',
  ]);
});
