// --resume only ever picks a complete checkpoint: a directory still named step-<k>.tmp-<pid>
// (a write that crashed before its rename) or one without trainer-state.json is passed over.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { findCheckpoint, pruneCheckpoints, writeCheckpoint } from '../../src/coordinator/run/checkpoint.ts';
import type { TrainerState } from '../../src/coordinator/run/trainer-state.ts';
import type { ModelLayout } from '../../src/shared/layout.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const layout: ModelLayout = {
  variables: [{ name: 'd/kernel', shape: [2, 2], dtype: 'float32', trainable: true }],
  saveOrder: [0],
  inputShape: [null, 2],
  outputShape: [null, 2],
  inputs: [{ name: 'in', shape: [null, 2] }],
  outputs: [{ name: 'out', shape: [null, 2] }],
  topology: {},
};
const state = (step: number) => ({ format: 'mgpu-train-checkpoint', version: 1, step }) as unknown as TrainerState;

function run(): string {
  const dir = tempDir('ckpt');
  const w = new Float32Array([1, 2, 3, 4]);
  for (const step of [10, 20]) writeCheckpoint(path.join(dir, 'checkpoints', `step-${step}`), layout, state(step), w, [], null);
  return dir;
}

test('a crashed write (.tmp directory) and a directory without trainer state are never picked', () => {
  const dir = run();
  const root = path.join(dir, 'checkpoints');
  fs.cpSync(path.join(root, 'step-20'), path.join(root, 'step-30.tmp-99999999'), { recursive: true });
  fs.mkdirSync(path.join(root, 'step-40'));
  fs.writeFileSync(path.join(root, 'step-40', 'model.json'), '{}');
  assert.equal(findCheckpoint(dir), path.join(root, 'step-20'));
});

test('newest first by step number, not by name', () => {
  const dir = run();
  writeCheckpoint(path.join(dir, 'checkpoints', 'step-9'), layout, state(9), new Float32Array(4), [], null);
  assert.equal(findCheckpoint(dir), path.join(dir, 'checkpoints', 'step-20'));
});

test('pruning keeps the newest k and removes temporary directories of dead writers only', () => {
  const dir = run();
  const root = path.join(dir, 'checkpoints');
  fs.mkdirSync(path.join(root, 'step-30.tmp-99999999'));
  fs.mkdirSync(path.join(root, `step-31.tmp-${process.pid}`));
  pruneCheckpoints(dir, 1);
  assert.deepEqual(fs.readdirSync(root).sort(), ['step-20', `step-31.tmp-${process.pid}`]);
});

test('a directory with no checkpoint is a clear error', () => {
  const dir = tempDir('ckpt');
  assert.throws(() => findCheckpoint(dir), /no checkpoint to resume from/);
});
