// SIGHUP (a terminal or SSH session that went away) mid-run stops the run as Ctrl-C does: the
// step in progress finishes, a checkpoint is written, the stop (with that checkpoint) goes into
// metrics.jsonl, the exit status is 129, and --resume continues from it to the end.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { checkpointSteps, isAlive, readMetrics, runCliAsync, startCli, waitForRunStep, workerPids, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('chaos-sighup');
const STEPS = 150;
const file = writeConfigFile(dir, 'hup', {
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 120, 'onehot', 7) },
  training: { batchSize: 12, steps: STEPS, seed: 2 },
  optimizer: { name: 'sgd', learningRate: 0.05 },
  log: { every: 1 },
});
const base = ['--simulate', '2', '--backend', 'cpu'];

test('SIGHUP mid-run: a checkpoint, the stop in metrics.jsonl, exit 129, and --resume ends the run', async (t) => {
  const runDir = path.join(dir, 'run');
  const metrics = path.join(runDir, 'metrics.jsonl');
  // Its own process group, as a terminal's job: the hang-up reaches the workers too.
  const cli = startCli(['train', file, ...base, '--run-dir', runDir], { ownProcessGroup: true });
  const at = await waitForRunStep(cli.done, metrics, 5);
  const workers = [...workerPids(cli.child.pid!).values()];
  process.kill(-cli.child.pid!, 'SIGHUP');
  const r = await cli.done;
  t.diagnostic(`SIGHUP after step ${at}: exit ${r.code} signal ${r.signal}`);
  assert.equal(r.code, 129, `exit ${r.code} (signal ${r.signal})\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /E_WORKER|failed in/, 'a worker died of the hang-up');
  const failures = readMetrics(metrics).filter((l) => l.type === 'failure');
  assert.deepEqual(failures, [], 'a worker died of the hang-up (and was restarted)');
  const m = /stopped by SIGHUP after step (\d+); checkpoint in (\S+) \(continue with --resume\)\n/.exec(r.stdout);
  assert.ok(m, r.stdout);
  // Nobody is at the terminal to press Ctrl-C: the line says what to send instead.
  assert.match(
    r.stdout,
    new RegExp(`SIGHUP: finishing this step, then writing a checkpoint \\(send SIGHUP again \\(kill -HUP ${cli.child.pid}\\) to stop at once\\)`),
  );
  const stoppedAt = Number(m[1]);
  assert.ok(stoppedAt >= at && stoppedAt < STEPS, `stopped after step ${stoppedAt}`);
  assert.deepEqual(checkpointSteps(runDir), [stoppedAt]);
  assert.deepEqual(readMetrics(metrics).at(-1), {
    type: 'stop',
    step: stoppedAt,
    ranks: [],
    message: 'stopped by SIGHUP',
    action: `checkpoint step-${stoppedAt}`,
  });
  assert.ok(!fs.existsSync(path.join(runDir, 'final')), 'an interrupted run wrote a final model');
  assert.ok(workers.length === 2 && workers.every((p) => !isAlive(p)), `workers ${workers} still alive after the CLI exited`);

  const resumed = await runCliAsync(['train', file, ...base, '--run-dir', runDir, '--resume']);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, new RegExp(`resuming from .*step-${stoppedAt} at step ${stoppedAt} of ${STEPS}`));
  assert.ok(fs.existsSync(path.join(runDir, 'final', 'model.json')));
});
