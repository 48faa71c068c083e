// --resume from a damaged newest checkpoint is refused naming the newest earlier one whose
// files all check out (passing over a damaged one between them), and the command it names
// continues the run to the weights of the run never damaged, bit for bit.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { finalWeights, runCliAsync } from '../helpers/chaos.ts';
import { copyRun, tinyRun, truncate } from '../helpers/run-dir-fixture.ts';

test('--resume names the previous complete checkpoint, and resuming from it ends as the undamaged run', async () => {
  const { runDir, config } = tinyRun('offers-previous', { checkpoint: { every: 1, keep: 10 } });
  const full = await runCliAsync(['train', config]);
  assert.equal(full.code, 0, full.stderr);
  const copy = copyRun(runDir, 'damaged');
  const step = (k: number) => path.join(copy, 'checkpoints', `step-${k}`);
  truncate(path.join(step(4), 'optimizer.bin'), 8);
  const t = path.join(step(3), 'trainer-state.json');
  fs.writeFileSync(t, fs.readFileSync(t, 'utf8').replace('"seed"', '"Seed"'));

  const r = await runCliAsync(['train', config, '--run-dir', copy, '--resume', '--set', 'training.steps=4']);
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(r.stderr, new RegExp(`^error E_CHECKPOINT: ${step(4)} is damaged: optimizer\\.bin is 8 bytes`, 'm'));
  const hint = new RegExp(`^  hint: the previous complete checkpoint is ${step(2)}: continue from it with --resume ${step(2)}$`, 'm');
  assert.match(r.stderr, hint);

  fs.rmSync(path.join(copy, 'final'), { recursive: true });
  const resumed = await runCliAsync(['train', config, '--run-dir', copy, '--resume', step(2)]);
  assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
  assert.match(resumed.stdout, new RegExp(`resuming from ${step(2)} at step 2 of 4`));
  assert.ok(finalWeights(copy).equals(finalWeights(runDir)), 'the run resumed from step 2 differs from the undamaged run');
});
