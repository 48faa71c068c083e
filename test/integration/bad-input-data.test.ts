// Bad training data through the CLI: exit 2 before the first step, an E_DATA message naming the
// config key and the file, and saying what is wrong with it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { encodeNpy, readNpy, writeNpy } from '../../src/shared/npy.ts';
import { runCli } from '../helpers/run-cli.ts';
import { FEATURES, tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('bad-data');
const model = writeModelModule(dir, 'mlp'); // [6] -> 3 classes
const good = writeDataset(dir, 'good', 40, 'onehot', 1);
const goodIndex = writeDataset(dir, 'good-index', 40, 'index', 1);
const file = (name: string) => path.join(dir, name);

let n = 0;
/** Trains with `data` (and `loss`) on simulated workers; expects exit 2 and an E_DATA message matching `message`. */
function rejects(data: Record<string, unknown>, message: RegExp, opts: { loss?: string; batchSize?: number } = {}): string {
  const runDir = file(`runs/${n}`);
  const cfg = file(`c${n++}.json`);
  fs.writeFileSync(
    cfg,
    JSON.stringify({
      model: { module: model },
      loss: opts.loss ?? 'categoricalCrossentropy',
      data,
      training: { batchSize: opts.batchSize ?? 8, steps: 3 },
      optimizer: { name: 'sgd' },
    }),
  );
  const r = runCli(['train', cfg, '--simulate', '1', '--backend', 'cpu', '--run-dir', runDir]);
  assert.equal(r.code, 2, `exit code; stderr:\n${r.stderr}`);
  assert.match(r.stderr, message);
  assert.doesNotMatch(r.stderr, /E_INTERNAL|\n\s+at /, 'an internal error or a stack trace');
  assert.ok(!fs.existsSync(path.join(runDir, 'metrics.jsonl')), 'training started');
  return r.stderr;
}
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('feature rows that do not fit the model input: both shapes, and the file', () => {
  writeNpy(file('wide-x.npy'), { dtype: 'float32', shape: [40, FEATURES + 1], data: new Float32Array(40 * (FEATURES + 1)) });
  rejects(
    { train: { ...good, features: file('wide-x.npy') } },
    new RegExp(
      `error E_DATA: data\\.train: feature rows of ${esc(file('wide-x.npy'))} .* have shape \\[7\\] \\(7 values\\) but the model's input is \\[batch, 6\\] \\(6 values per sample\\)`,
    ),
  );
});

test('a label count that differs from the feature count: both files and both counts', () => {
  const other = writeDataset(dir, 'other', 30, 'onehot', 2);
  rejects(
    { train: { ...good, labels: other.labels } },
    new RegExp(`error E_DATA: data\\.train: features ${esc(good.features)} hold 40 samples but labels ${esc(other.labels)} hold 30`),
  );
});

test('a sparse label out of range: the sample, its value and the valid range', () => {
  const y = readNpy(goodIndex.labels);
  y.data[17] = 3; // the model has 3 outputs: 0..2
  writeNpy(file('bad-index-y.npy'), y);
  rejects(
    { train: { ...goodIndex, labels: file('bad-index-y.npy') } },
    /error E_DATA: data\.train: label of sample 17 in .*bad-index-y\.npy is 3; the loss expects class indices 0\.\.2 \(the model has 3 outputs\)/,
    { loss: 'sparseCategoricalCrossentropy' },
  );
  y.data[17] = -1;
  writeNpy(file('negative-index-y.npy'), y);
  rejects({ train: { ...goodIndex, labels: file('negative-index-y.npy') } }, /label of sample 17 .* is -1; the loss expects class indices 0\.\.2/, {
    loss: 'sparseCategoricalCrossentropy',
  });
});

test('an empty .npy (0 rows), for training and for evaluation: the key and the file', () => {
  writeNpy(file('empty-x.npy'), { dtype: 'float32', shape: [0, FEATURES], data: new Float32Array(0) });
  writeNpy(file('empty-y.npy'), { dtype: 'float32', shape: [0, 3], data: new Float32Array(0) });
  const empty = { type: 'npy', features: file('empty-x.npy'), labels: file('empty-y.npy') };
  rejects({ train: empty }, new RegExp(`error E_DATA: data\\.train: ${esc(file('empty-x.npy'))} holds no samples \\(shape \\[0,6\\]\\)`));
  rejects({ train: good, eval: empty }, new RegExp(`error E_DATA: data\\.eval: ${esc(file('empty-x.npy'))} holds no samples`));
});

test('a truncated .npy (in its data, in its header): the file and what is missing', () => {
  const bytes = fs.readFileSync(good.features);
  fs.writeFileSync(file('cut-data-x.npy'), bytes.subarray(0, bytes.length - 37));
  rejects(
    { train: { ...good, features: file('cut-data-x.npy') } },
    new RegExp(`error E_DATA: ${esc(file('cut-data-x.npy'))}: data holds \\d+ bytes but shape \\[40, 6\\] float32 needs 960 \\(file truncated\\?\\)`),
  );
  fs.writeFileSync(file('cut-header-y.npy'), encodeNpy(readNpy(good.labels)).subarray(0, 30));
  rejects({ train: { ...good, labels: file('cut-header-y.npy') } }, new RegExp(`error E_DATA: ${esc(file('cut-header-y.npy'))}: header truncated`));
});

test('a training set smaller than one global batch: both numbers and what to change', () => {
  const small = writeDataset(dir, 'small', 5, 'onehot', 3);
  const err = rejects({ train: small }, /error E_DATA: data\.train: the training set has 5 samples, fewer than one global batch of 8/);
  assert.match(err, /hint: lower training\.batchSize/);
});
