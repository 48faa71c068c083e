// --resume from an earlier checkpoint than the run's newest: the later checkpoints belong to the
// run as it went before, which the resumed run does not continue. They are moved aside whole
// (nothing deleted), so a later plain --resume, or eval on the run directory, takes the resumed
// run's newest checkpoint and never one of the abandoned ones.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { findCheckpoint } from '../../src/coordinator/run/checkpoint.ts';
import { runCliAsync } from '../helpers/chaos.ts';
import { snapshotFiles, tinyRun } from '../helpers/run-dir-fixture.ts';

test('resuming from step 2 of a run checkpointed at 2, 4 and 6 sets 4 and 6 aside, and --resume then takes the new run', async () => {
  const { runDir, config } = tinyRun('resume-earlier', { training: { batchSize: 8, steps: 6 }, checkpoint: { every: 2, keep: 10 } });
  const first = await runCliAsync(['train', config]);
  assert.equal(first.code, 0, first.stderr);
  const root = path.join(runDir, 'checkpoints');
  const before = (k: number) => snapshotFiles(path.join(root, `step-${k}`)).map((l) => l.split(' ').slice(2).join(' '));
  const old = { 4: before(4), 6: before(6) };

  // Resume from step 2 and stop at step 3: the run's newest checkpoint is then step-3.
  const resumed = await runCliAsync(['train', config, '--resume', path.join(root, 'step-2'), '--set', 'training.steps=3']);
  assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
  const aside = /the later checkpoints step-4, step-6 \(of the run as it went before\) moved to (\S+)/.exec(resumed.stdout);
  assert.ok(aside, resumed.stdout);
  const asideDir: string = aside[1]!;

  assert.deepEqual(
    fs
      .readdirSync(root)
      .filter((n) => n.startsWith('step-'))
      .sort(),
    ['step-2', 'step-3'],
    'only the resumed run checkpoints are where --resume looks',
  );
  assert.equal(findCheckpoint(runDir), path.join(root, 'step-3'), '--resume and eval take the resumed run newest');
  for (const k of [4, 6] as const) {
    const kept: string[] = snapshotFiles(path.join(asideDir, `step-${k}`)).map((l) => l.split(' ').slice(2).join(' '));
    assert.deepEqual(kept, old[k], `step-${k} is kept whole where it was moved`);
  }
});
