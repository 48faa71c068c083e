// A run killed with SIGKILL cannot remove its lock: the next run into its directory finds the
// lock's pid dead on this host, takes the lock over with a note, and runs (here: --resume from
// the killed run's checkpoint, to its end); its own lock is gone when it ends.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { checkpointSteps, runCliAsync, startCli, waitFor, waitForRunStep } from '../helpers/chaos.ts';
import { tinyRun } from '../helpers/run-dir-fixture.ts';

test('the lock of a SIGKILLed run is taken over by the next run', async () => {
  const { runDir, config } = tinyRun('stale-lock', { training: { batchSize: 8, steps: 100_000 }, log: { every: 1 }, checkpoint: { every: 2 } });
  const killed = startCli(['train', config]);
  try {
    await waitForRunStep(killed.done, path.join(runDir, 'metrics.jsonl'), 3);
    await waitFor(() => checkpointSteps(runDir).length > 0, 30_000, 'a checkpoint');
    killed.child.kill('SIGKILL');
    await killed.done;
  } finally {
    killed.child.kill('SIGKILL');
  }
  const lock = path.join(runDir, '.lock');
  const held = JSON.parse(fs.readFileSync(lock, 'utf8')) as { pid: number };
  assert.equal(held.pid, killed.child.pid, 'the killed run left no lock of its own');

  const k = checkpointSteps(runDir).at(-1)!;
  const r = await runCliAsync(['train', config, '--resume', '--set', `training.steps=${k + 2}`]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, new RegExp(`^took over the stale lock ${lock} \\(pid ${held.pid} on [^,]+, started [^)]+, which no longer runs\\)$`, 'm'));
  assert.match(r.stdout, new RegExp(`resuming from ${runDir}/checkpoints/step-${k} at step ${k}`));
  assert.ok(fs.existsSync(path.join(runDir, 'final', 'model.json')), 'the resumed run did not finish');
  assert.ok(!fs.existsSync(lock), 'the lock outlived the resumed run');
});
