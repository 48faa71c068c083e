// Bad `metrics` through the CLI: exit 2 before any worker starts, an error that starts with the
// key path and says what is wrong, a hint, and no stack trace: an unknown metric, an average on
// a metric that has none, a metric that needs classes with a regression loss, and custom metric
// modules that cannot load or export no metric function.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bad-metrics-'));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
fs.writeFileSync(
  path.join(dir, 'model.mjs'),
  'export default (tf) => tf.sequential({ layers: [tf.layers.dense({ inputShape: [4], units: 3, activation: "softmax" })] });\n',
);
fs.writeFileSync(path.join(dir, 'no-default.mjs'), 'export const metric = () => ({});\n');
fs.writeFileSync(path.join(dir, 'broken.mjs'), 'export default (;\n');
fs.writeFileSync(path.join(dir, 'bad-finalize.mjs'), 'export default () => ({ n: 1 });\nexport const finalize = 3;\n');
for (const f of ['x.npy', 'y.npy', 'ex.npy', 'ey.npy']) fs.writeFileSync(path.join(dir, f), '');

const config = (loss: string, metrics: string) => `model: { module: ./model.mjs }
loss: ${loss}
data:
  train: { type: npy, features: ./x.npy, labels: ./y.npy }
  eval: { type: npy, features: ./ex.npy, labels: ./ey.npy }
training: { batchSize: 8, steps: 3 }
optimizer: { name: sgd }
metrics: ${metrics}
`;

let n = 0;
function rejects(yaml: string, message: RegExp, extra: string[] = []): string {
  const file = path.join(dir, `c${n++}.yaml`);
  fs.writeFileSync(file, yaml);
  const runDir = path.join(dir, 'runs', String(n));
  const r = runCli(['train', file, '--simulate', '1', '--backend', 'cpu', '--run-dir', runDir, ...extra]);
  assert.equal(r.code, 2, `exit code; stderr:\n${r.stderr}`);
  assert.match(r.stderr, message);
  assert.match(r.stderr, /\n\s+hint: /, 'a hint');
  assert.doesNotMatch(r.stderr, /E_INTERNAL|\n\s+at /, 'an internal error or a stack trace');
  assert.doesNotMatch(r.stderr, /\[rank \d+\]/, 'a worker started');
  assert.ok(!fs.existsSync(runDir), 'a run directory was created for a rejected config');
  return r.stderr;
}

test('an unknown metric name: exit 2, its key path, and the name that was meant', () => {
  const err = rejects(config('categoricalCrossentropy', '[accuracy, precison]'), /error E_CONFIG: metrics\[1\]: unknown metric "precison" \(string\)/);
  assert.match(err, /did you mean 'precision'\?/);
  rejects(config('categoricalCrossentropy', '[accuracy]'), /error E_CONFIG: metrics\[1\]: unknown metric "roc"/, ['--set', 'metrics=[accuracy, roc]']);
});

test('an average on a metric that has none: exit 2 naming metrics[i].average', () => {
  rejects(config('categoricalCrossentropy', '[{ name: auc, average: macro }]'), /error E_CONFIG: metrics\[0\]\.average: 'auc' has no average/);
});

test('a metric that needs classes with a regression loss: exit 2 naming metrics[i]', () => {
  rejects(config('meanSquaredError', '[rmse, precision]'), /error E_CONFIG: metrics\[1\]: 'precision' needs classes, but loss is 'meanSquaredError'/);
  rejects(config('binaryCrossentropy', '[auc, topK]'), /error E_CONFIG: metrics\[1\]: 'topK' needs a score per class/);
});

test('custom metric modules: missing, not loading, no default export, finalize not a function', () => {
  rejects(config('categoricalCrossentropy', '[{ module: ./nope.mjs }]'), /error E_CONFIG: metrics\[0\]\.module: file not found: .*nope\.mjs/);
  rejects(config('categoricalCrossentropy', '[{ module: ./broken.mjs }]'), /error E_METRIC: metrics\[0\]\.module .*broken\.mjs failed to load/);
  rejects(
    config('categoricalCrossentropy', '[accuracy, { module: ./no-default.mjs }]'),
    /error E_METRIC: metrics\[1\]\.module .*no-default\.mjs has no default export function/,
  );
  rejects(
    config('categoricalCrossentropy', '[{ module: ./bad-finalize.mjs }]'),
    /error E_METRIC: metrics\[0\]\.module .*bad-finalize\.mjs: its export finalize is number, not a function/,
  );
});
