// `predict --output` into a missing directory (or a .npy onto a directory, a directory output onto
// a file) is refused before any worker starts, not after all the work: exit 2, naming the path, no stack trace, nothing left
// running.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { writeNpy } from '../../src/shared/npy.ts';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tagProcesses } from '../helpers/leftover-processes.ts';
import { writeNotedModel } from '../helpers/noted-model.ts';
import { FEATURES, tempDir, writeDataset } from '../helpers/train-fixture.ts';

const dir = tempDir('predict-output');
const noted = writeNotedModel(dir);
const model = noted.module;
const runDir = path.join(dir, 'run');
const file = writeConfigFile(dir, 'predict', {
  model: { module: model },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 16, 'onehot', 1) },
  training: { batchSize: 8, steps: 1 },
  optimizer: { name: 'sgd' },
  devices: { simulate: 2, backend: 'cpu' },
  runDir,
});
const input = path.join(dir, 'rows.npy');
writeNpy(input, { dtype: 'float32', shape: [4, FEATURES], data: new Float32Array(4 * FEATURES).fill(0.25) });
let trained: Promise<void> | null = null;
/** A model to predict with (trained once): the refused runs must fail for their --output alone. */
const modelDir = async () => {
  trained ??= runCliAsync(['train', file]).then((r) => assert.equal(r.code, 0, r.stderr));
  await trained;
  return path.join(runDir, 'final');
};

async function refused(output: string, what: RegExp): Promise<void> {
  const checkpoint = await modelDir();
  noted.reset();
  const procs = tagProcesses();
  const r = await runCliAsync(['predict', file, '--checkpoint', checkpoint, '--input', input, '--output', output], { env: procs.env, timeoutMs: 60_000 });
  assert.equal(r.code, 2, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, what);
  assert.doesNotMatch(r.stderr, /^\s+at /m, 'a stack trace');
  assert.ok(!noted.built(), 'workers started before --output was checked');
  assert.deepEqual(procs.alive(), [], 'processes of the run are still alive');
}

test('--output into a missing directory', async () => {
  const missing = path.join(dir, 'no-such-dir');
  await refused(
    path.join(missing, 'y.npy'),
    new RegExp(`^error E_USAGE: --output ${missing}/y\\.npy: the directory ${missing} does not exist\\n  hint: create it first`, 'm'),
  );
});

test('--output that is a directory', async () => {
  const target = path.join(dir, 'a-dir.npy');
  fs.mkdirSync(target);
  await refused(target, new RegExp(`^error E_USAGE: --output ${target}: is a directory`, 'm'));
});

// A path without .npy or .csv is a directory of one <output name>.npy per output.
test('--output directory in a missing directory', async () => {
  const missing = path.join(dir, 'no-such-parent');
  await refused(path.join(missing, 'preds'), new RegExp(`^error E_USAGE: --output ${missing}/preds: the directory ${missing} does not exist`, 'm'));
});

test('--output directory that is a file', async () => {
  const target = path.join(dir, 'a-file');
  fs.writeFileSync(target, '');
  await refused(target, new RegExp(`^error E_USAGE: --output ${target}: is a file; an output named without \\.npy or \\.csv is a directory`, 'm'));
});

test('the same model predicts into a directory that exists', async () => {
  const output = path.join(dir, 'y.npy');
  const r = await runCliAsync(['predict', file, '--checkpoint', await modelDir(), '--input', input, '--output', output]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(fs.existsSync(output));
});
