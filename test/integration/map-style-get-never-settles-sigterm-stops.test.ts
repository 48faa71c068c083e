// One SIGTERM stops a run whose step waits for a map-style get() that never settles, as it stops
// a run stuck anywhere else: the stop line, step 1 in a checkpoint, exit 143, no second signal
// needed (the deadline, reliability.stepTimeout, is left at its 600 s so that only the signal can
// end the wait).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { checkpointSteps, lastTrainStep, startCli, waitFor } from '../helpers/chaos.ts';
import { writeHangingRun } from '../helpers/hanging-get.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('get-never-settles-sigterm');

test('SIGTERM while a step waits for a get() that never settles: stopped after step 1, checkpoint kept, exit 143', async () => {
  const run = writeHangingRun(dir, 'sigterm');
  const cli = startCli(['train', run.config, '--simulate', '1', '--backend', 'cpu']);
  let kill: NodeJS.Timeout | undefined;
  try {
    const metrics = path.join(run.runDir, 'metrics.jsonl');
    // get(5) of epoch 2 is asked for ahead (data.prefetch: 1); once step 1's train line is written
    // too, the loop has gone on to step 2, whose batch waits for it.
    await waitFor(() => fs.existsSync(run.marker) && lastTrainStep(metrics) === 1, 120_000, 'get(5) of epoch 2 waiting, after step 1');
    process.kill(cli.child.pid!, 'SIGTERM');
    kill = setTimeout(() => cli.child.kill('SIGKILL'), 60_000); // a stop writes one small checkpoint: far less than this, even on a loaded machine
    const r = await cli.done;
    assert.equal(r.signal, null, `killed by ${r.signal}: one SIGTERM did not stop the run\n${r.stdout}\n${r.stderr}`);
    assert.equal(r.code, 143, `exit code\n${r.stdout}\n${r.stderr}`);
    const ckpt = path.join(run.runDir, 'checkpoints', 'step-1');
    assert.ok(r.stdout.includes(`stopped by SIGTERM after step 1; checkpoint in ${ckpt} (continue with --resume)`), r.stdout);
    assert.deepEqual(checkpointSteps(run.runDir), [1]);
  } finally {
    clearTimeout(kill);
    if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
  }
});
