// A new run into a run directory that holds another run is refused before any worker starts:
// exit 2, E_RUN_EXISTS naming what the directory holds (final/, the checkpoints up to their
// newest step, metrics.jsonl's lines) and the three ways on; every file of the earlier run is
// left byte for byte as it was, and no lock is left behind.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync } from '../helpers/chaos.ts';
import { snapshotFiles, tinyRun } from '../helpers/run-dir-fixture.ts';

test('a second run into a used run directory is refused and changes nothing', async () => {
  const { runDir, config } = tinyRun('rerun-refused');
  const first = await runCliAsync(['train', config]);
  assert.equal(first.code, 0, first.stderr);
  const lines = fs.readFileSync(path.join(runDir, 'metrics.jsonl'), 'utf8').trim().split('\n').length;
  const before = snapshotFiles(runDir);

  const again = await runCliAsync(['train', config, '--set', 'optimizer.learningRate=0.01']);
  assert.equal(again.code, 2, again.stdout + again.stderr);
  assert.match(
    again.stderr,
    new RegExp(
      `^error E_RUN_EXISTS: ${runDir} holds another run: checkpoints/ \\(2 checkpoints up to step 4\\), config\\.yaml, events\\.out\\.tfevents\\.[^,]+, final/, metrics\\.jsonl \\(${lines} lines\\)\\n` +
        '  hint: continue it with --resume .*another name .*--run-dir.*--overwrite',
      'm',
    ),
  );
  assert.doesNotMatch(again.stderr, /\n\s+at /, 'no stack trace');
  assert.doesNotMatch(again.stdout, /step \d|eval @/, 'no training started');
  assert.deepEqual(snapshotFiles(runDir), before, 'the earlier run was changed');
  assert.ok(!fs.existsSync(path.join(runDir, '.lock')), 'the lock was left behind');
});
