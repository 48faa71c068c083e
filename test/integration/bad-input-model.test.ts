// Bad model modules through the CLI: exit 2 before the first step, an E_MODEL message naming
// the rank and GPU that met it, the module file, and what went wrong.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir, writeDataset } from '../helpers/train-fixture.ts';

const dir = tempDir('bad-model');
const data = writeDataset(dir, 'train', 40, 'onehot', 1);
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Writes `source` as a model module and trains with it; expects exit 2 and an E_MODEL message. */
function rejects(name: string, source: string, message: (file: string) => RegExp, workers = 1): string {
  const module = path.join(dir, `${name}.mjs`);
  fs.writeFileSync(module, source);
  const cfg = path.join(dir, `${name}.json`);
  const runDir = path.join(dir, 'runs', name);
  fs.writeFileSync(
    cfg,
    JSON.stringify({
      model: { module },
      loss: 'categoricalCrossentropy',
      data: { train: data },
      training: { batchSize: 8, steps: 3 },
      optimizer: { name: 'sgd' },
    }),
  );
  const r = runCli(['train', cfg, '--simulate', String(workers), '--backend', 'cpu', '--run-dir', runDir]);
  assert.equal(r.code, 2, `exit code; stderr:\n${r.stderr}`);
  assert.match(r.stderr, message(module));
  assert.doesNotMatch(r.stderr, /E_INTERNAL/, 'an internal error');
  assert.ok(!fs.existsSync(path.join(runDir, 'metrics.jsonl')), 'training started');
  return r.stderr;
}

test('a model module that throws: the rank, the GPU, the file and the exception', () => {
  rejects(
    'throws',
    'export default () => { throw new Error("no such layer: densse"); };\n',
    (f) => new RegExp(`error E_MODEL: rank 0 \\(GPU 0\\): model\\.module ${esc(f)} threw while building the model: no such layer: densse`),
    2,
  );
  rejects(
    'throws-async',
    'export default async () => { await null; throw new TypeError("tf.layers.foo is not a function"); };\n',
    (f) => new RegExp(`error E_MODEL: rank 0 \\(GPU 0\\): model\\.module ${esc(f)} threw while building the model: tf\\.layers\\.foo is not a function`),
  );
});

test('a model module that returns something other than a LayersModel: what it returned, and what to return', () => {
  const err = rejects(
    'plain-object',
    'export default (tf) => ({ layers: [tf.layers.dense({ units: 3 })] });\n',
    (f) => new RegExp(`error E_MODEL: rank 0 \\(GPU 0\\): model\\.module ${esc(f)} returned object, not a tf\\.LayersModel`),
  );
  assert.match(err, /hint: return the model \(tf\.sequential\(\.\.\.\) or tf\.model\(\.\.\.\)\)/);
  rejects(
    'forgot-return',
    'export default (tf) => { tf.sequential({ layers: [tf.layers.dense({ inputShape: [6], units: 3 })] }); };\n',
    (f) => new RegExp(`model\\.module ${esc(f)} returned undefined, not a tf\\.LayersModel`),
  );
  rejects('a-tensor', 'export default (tf) => tf.zeros([6, 3]);\n', (f) => new RegExp(`model\\.module ${esc(f)} returned object, not a tf\\.LayersModel`));
});

test('a model module that does not load, or exports no builder: the file and why', () => {
  rejects(
    'syntax',
    'export default (tf) => {{ tf.sequential(;\n',
    (f) => new RegExp(`error E_MODEL: rank 0 \\(GPU 0\\): model\\.module ${esc(f)} failed to load: `),
  );
  rejects(
    'no-builder',
    'export const model = 3;\n',
    (f) => new RegExp(`error E_MODEL: rank 0 \\(GPU 0\\): model\\.module ${esc(f)} exports no model builder function`),
  );
});
