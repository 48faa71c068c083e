// Checkpoints and models written before checksums.json existed (or saved by plain tfjs) still
// load, with the size checks alone: eval of such a checkpoint prints the figures it prints with
// checksums, and --resume from it trains on to the end.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync } from '../helpers/chaos.ts';
import { copyRun, tinyRun } from '../helpers/run-dir-fixture.ts';

const figures = (stdout: string) => stdout.split('\n').filter((l) => /^ {2}(samples|loss|accuracy|mae) /.test(l));

test('a checkpoint without checksums.json is evaluated and resumed', async () => {
  const { runDir, config } = tinyRun('without-checksums');
  const first = await runCliAsync(['train', config]);
  assert.equal(first.code, 0, first.stderr);
  const old = copyRun(runDir, 'old');
  const sums = fs.readdirSync(old, { recursive: true, encoding: 'utf8' }).filter((p) => path.basename(p) === 'checksums.json');
  assert.ok(sums.length >= 3, `checksums.json in final/ and each checkpoint: ${sums.join(', ')}`);
  for (const p of sums) fs.rmSync(path.join(old, p));

  const withSums = await runCliAsync(['eval', config, '--checkpoint', path.join(runDir, 'checkpoints', 'step-4')]);
  const without = await runCliAsync(['eval', config, '--checkpoint', path.join(old, 'checkpoints', 'step-4')]);
  assert.equal(without.code, 0, without.stderr);
  assert.equal(figures(without.stdout).length, 4, without.stdout);
  assert.deepEqual(figures(without.stdout), figures(withSums.stdout));

  const resumed = await runCliAsync(['train', config, '--run-dir', old, '--resume', '--set', 'training.steps=6']);
  assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
  assert.match(resumed.stdout, /resuming from .*step-4 at step 4 of 6/);
});
