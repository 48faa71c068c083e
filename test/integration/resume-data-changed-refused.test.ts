// --resume continues on the data its checkpoint was trained on, or refuses: a same-shaped
// rewrite of a training file is E_RESUME (exit 2) naming each file and what changed, unless
// --allow-changed names it (then the change is reported and the run goes on); a training split
// of another sample count is refused even so; a checkpoint written before checkpoints recorded
// their data resumes with a note. A refused resume starts nothing and writes nothing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync } from '../helpers/chaos.ts';
import { snapshotFiles, tinyRun } from '../helpers/run-dir-fixture.ts';
import { writeDataset } from '../helpers/train-fixture.ts';
import { checksumsJson } from '../../src/shared/file-integrity.ts';

const twoSteps = (tag: string) => tinyRun(tag, { training: { batchSize: 8, steps: 2 } });
const resume = (config: string, ...more: string[]) => runCliAsync(['train', config, '--resume', '--set', 'training.steps=4', ...more]);

test('a same-shaped rewrite of the training files is refused naming them; --allow-changed resumes on them', async () => {
  const { dir, runDir, config } = twoSteps('resume-data-rewrite');
  const first = await runCliAsync(['train', config]);
  assert.equal(first.code, 0, first.stderr);
  writeDataset(dir, 'train', 24, 'onehot', 9); // the same names and shapes, other rows
  const before = snapshotFiles(runDir);

  const refused = await resume(config);
  assert.equal(refused.code, 2, refused.stdout + refused.stderr);
  const file = (name: string) => path.join(dir, name).replace(/[.]/g, '\\.');
  assert.match(
    refused.stderr,
    new RegExp(
      `^error E_RESUME: cannot resume from ${runDir}/checkpoints/step-2: the data changed since it was written: ` +
        `data\\.train\\.features ${file('train-x.npy')}: its bytes differ \\(CRC-32C [0-9a-f]{8} now, the checkpoint's [0-9a-f]{8}; \\d+ bytes both\\); ` +
        `data\\.train\\.labels ${file('train-y.npy')}: its bytes differ .*\\n` +
        '  hint: .*restore it, or resume on the data as it is now with --allow-changed data\\.train\\.features --allow-changed data\\.train\\.labels, or start a new run',
      'm',
    ),
  );
  assert.doesNotMatch(refused.stdout, /step \d|resuming from/, 'no training started');
  assert.deepEqual(snapshotFiles(runDir), before, 'the refused resume wrote to the run directory');

  const allowed = await resume(config, '--allow-changed', 'data.train');
  assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
  assert.match(allowed.stdout, /data changed on resume \(--allow-changed\): data\.train\.features .*train-x\.npy: its bytes differ.*; data\.train\.labels /);
  assert.match(allowed.stdout, /resuming from .*step-2 at step 2 of 4/);
  // Its checkpoints record the data it now trains on: a further resume on it is not refused.
  const again = await runCliAsync(['train', config, '--resume', '--set', 'training.steps=6']);
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assert.doesNotMatch(again.stdout, /data changed/);
});

test('a training split of another sample count is refused, --allow-changed or not', async () => {
  const { dir, runDir, config } = twoSteps('resume-data-count');
  const first = await runCliAsync(['train', config]);
  assert.equal(first.code, 0, first.stderr);
  writeDataset(dir, 'train', 16, 'onehot', 4);
  const before = snapshotFiles(runDir);
  for (const extra of [[], ['--allow-changed', 'data.train']]) {
    const r = await resume(config, ...extra);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /^error E_RESUME: cannot resume from .*step-2: data\.train holds 16 samples now, the checkpoint was trained on 24\n {2}hint: .*not even with --allow-changed/m,
    );
    assert.doesNotMatch(r.stdout, /step \d|resuming from/, 'no training started');
  }
  assert.deepEqual(snapshotFiles(runDir), before, 'the refused resume wrote to the run directory');
});

test('a checkpoint written before checkpoints recorded their data resumes, with a note', async () => {
  const { runDir, config } = twoSteps('resume-data-old');
  const first = await runCliAsync(['train', config]);
  assert.equal(first.code, 0, first.stderr);
  const ckpt = path.join(runDir, 'checkpoints', 'step-2');
  const stateFile = path.join(ckpt, 'trainer-state.json');
  const state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as Record<string, unknown>;
  assert.ok(state.data, 'the checkpoint records its data');
  delete state.data;
  fs.writeFileSync(stateFile, JSON.stringify(state, null, 1));
  const files = Object.fromEntries(
    fs
      .readdirSync(ckpt)
      .filter((n) => n !== 'checksums.json')
      .map((n) => [n, fs.readFileSync(path.join(ckpt, n))]),
  );
  fs.writeFileSync(path.join(ckpt, 'checksums.json'), checksumsJson(files));

  const r = await resume(config);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /note: .*step-2 was written before checkpoints recorded their data .*: the data is not compared with it/);
  assert.match(r.stdout, /resuming from .*step-2 at step 2 of 4/);
});
