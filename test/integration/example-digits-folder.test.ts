// examples/digits-folder works as its comments say, cut short: write-digits.ts writes the
// digits as grey PNGs in class folders, the experiment trains from them (augmented) on 2
// simulated GPUs, the header names the folder and its classes, and predict on a class folder
// writes path,class,score with the folder names as classes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/run-cli.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/digits-folder/', import.meta.url));

test('examples/digits-folder: write the PNG folders, train from them, predict a folder', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mgpu-example-digits-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const digits = path.join(dir, 'digits');
  const w = spawnSync(process.execPath, ['--import', 'tsx', path.join(EXAMPLE, 'write-digits.ts'), '--train', '640', '--val', '100', '--out', digits], {
    encoding: 'utf8',
  });
  assert.equal(w.status, 0, w.stderr);
  assert.equal(fs.readdirSync(path.join(digits, 'train')).sort().join(' '), '0 1 2 3 4 5 6 7 8 9');
  const runDir = path.join(dir, 'run');
  const sets = ['--set', `runDir=${runDir}`, '--set', `data.train.dir=${digits}/train`, '--set', `data.eval.dir=${digits}/val`];
  const r = runCli(['train', path.join(EXAMPLE, 'experiment.yaml'), '--simulate', '2', '--set', 'training.epochs=1', ...sets], { timeoutMs: 300_000 });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, new RegExp(`input       images folder ${digits}/train: 640 images \\(png 640\\) in 10 classes, 28x28x1 float32`));
  assert.match(r.stdout, /labels {6}10 classes from data.train \(sorted\): 0 "0", 1 "1"/);
  const out = path.join(dir, 'sevens.csv');
  const p = runCli([
    'predict',
    path.join(EXAMPLE, 'experiment.yaml'),
    '--simulate',
    '2',
    '--checkpoint',
    path.join(runDir, 'final'),
    '--input',
    `${digits}/val/7`,
    '--output',
    out,
    ...sets,
  ]);
  assert.equal(p.code, 0, p.stderr + p.stdout);
  const rows = fs.readFileSync(out, 'utf8').trim().split('\n');
  assert.equal(rows[0], 'path,class,score');
  assert.equal(rows.length - 1, fs.readdirSync(path.join(digits, 'val', '7')).length);
  assert.ok(
    rows.slice(1).every((l) => /^.*\/val\/7\/\d+\.png,[0-9],[0-9.e-]+$/.test(l)),
    rows.slice(0, 3).join('\n'),
  );
});
