// Ctrl-C and SIGTERM sent to the CLI process mid-run: it finishes the step in progress, writes a
// checkpoint and exits 128 + the signal number (130, 143); --resume then continues from that
// checkpoint and ends with final weights bit-identical to an uninterrupted run's. Also: Ctrl-C
// to the whole process group (workers ignore it), during setup, and twice (stop at once).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  checkpointSteps,
  finalWeights,
  isAlive,
  lastTrainStep,
  processState,
  runCliAsync,
  startCli,
  waitFor,
  waitForRunStep,
  workerPids,
  writeConfigFile,
} from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

const dir = tempDir('chaos-signals');
const STEPS = 150;
const file = writeConfigFile(dir, 'signals', {
  model: { module: writeModelModule(dir, 'batchnorm') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 120, 'onehot', 31) },
  training: { batchSize: 12, steps: STEPS, seed: 4 },
  optimizer: { name: 'adam', learningRate: 0.01 },
  log: { every: 1 },
});
const base = ['--simulate', '2', '--backend', 'cpu'];
const cleanDir = path.join(dir, 'runs', 'clean');
let clean: Promise<Buffer> | null = null;
/** The final weights of the uninterrupted run, trained once for both tests. */
function cleanWeights(): Promise<Buffer> {
  clean ??= runCliAsync(['train', file, ...base, '--run-dir', cleanDir]).then((r) => {
    assert.equal(r.code, 0, r.stderr);
    return finalWeights(cleanDir);
  });
  return clean;
}

async function interruptAndResume(t: { diagnostic(s: string): void }, signal: 'SIGINT' | 'SIGTERM', exitCode: number): Promise<void> {
  const expected = await cleanWeights();
  const runDir = path.join(dir, 'runs', signal);
  const cli = startCli(['train', file, ...base, '--run-dir', runDir]);
  const metrics = path.join(runDir, 'metrics.jsonl');
  const at = await waitForRunStep(cli.done, metrics, 5);
  const workers = [...workerPids(cli.child.pid!).values()];
  process.kill(cli.child.pid!, signal);
  const r = await cli.done;
  t.diagnostic(
    `${signal} after step ${at}: exit ${r.code}; ${r.stdout
      .split('\n')
      .filter((l) => /stopped|SIGINT|SIGTERM/.test(l))
      .join(' | ')}`,
  );
  assert.equal(r.code, exitCode, `exit code after ${signal}\n${r.stderr}`);
  const m = new RegExp(`stopped by ${signal} after step (\\d+); checkpoint in (\\S+) \\(continue with --resume\\)\n`).exec(r.stdout); // the line ends: a shell prompt after it starts on its own line
  assert.ok(m, r.stdout);
  const stoppedAt = Number(m[1]);
  assert.ok(stoppedAt >= at && stoppedAt < STEPS, `stopped after step ${stoppedAt}`);
  assert.equal(m[2], path.join(runDir, 'checkpoints', `step-${stoppedAt}`));
  assert.deepEqual(checkpointSteps(runDir), [stoppedAt]);
  assert.equal(lastTrainStep(metrics), stoppedAt, 'the metrics end at the step the checkpoint holds');
  assert.ok(!fs.existsSync(path.join(runDir, 'final')), 'an interrupted run wrote a final model');
  assert.ok(workers.length === 2 && workers.every((p) => !isAlive(p)), `workers ${workers} still alive after the CLI exited`);

  const resumed = await runCliAsync(['train', file, ...base, '--run-dir', runDir, '--resume']);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, new RegExp(`resuming from .*step-${stoppedAt} at step ${stoppedAt} of ${STEPS}`));
  assert.ok(finalWeights(runDir).equals(expected), `the run interrupted by ${signal} and resumed is not bit-identical to the uninterrupted run`);
}

test('SIGINT mid-run: exit 130, a checkpoint, and --resume ends bit-identical to an uninterrupted run', async (t) => {
  await interruptAndResume(t, 'SIGINT', 130);
});

test('SIGTERM mid-run: exit 143, a checkpoint, and --resume ends bit-identical to an uninterrupted run', async (t) => {
  await interruptAndResume(t, 'SIGTERM', 143);
});

test('Ctrl-C to the whole process group (as a terminal sends it): the workers ignore it, the CLI checkpoints and exits 130', async (t) => {
  const runDir = path.join(dir, 'runs', 'group');
  const cli = startCli(['train', file, ...base, '--run-dir', runDir], { ownProcessGroup: true });
  const at = await waitForRunStep(cli.done, path.join(runDir, 'metrics.jsonl'), 5);
  const workers = [...workerPids(cli.child.pid!).values()];
  assert.equal(workers.length, 2);
  process.kill(-cli.child.pid!, 'SIGINT');
  const r = await cli.done;
  t.diagnostic(`SIGINT to process group ${cli.child.pid} after step ${at}: exit ${r.code}`);
  assert.equal(r.code, 130, r.stderr);
  assert.doesNotMatch(r.stderr, /E_WORKER|failed in/, 'a worker died of the Ctrl-C');
  const m = /stopped by SIGINT after step (\d+); checkpoint in/.exec(r.stdout);
  assert.ok(m, r.stdout);
  assert.deepEqual(checkpointSteps(runDir), [Number(m[1])]);
  assert.ok(
    workers.every((p) => !isAlive(p)),
    `workers ${workers} still alive after the CLI exited`,
  );
});

test('Ctrl-C during setup (workers still loading): exit 130, no checkpoint, no worker left', async (t) => {
  const runDir = path.join(dir, 'runs', 'setup');
  const cli = startCli(['train', file, ...base, '--run-dir', runDir]);
  const workers = await waitFor(
    () => {
      const w = [...workerPids(cli.child.pid!).values()];
      return w.length === 2 ? w : null;
    },
    60_000,
    'the workers to start',
  );
  assert.equal(lastTrainStep(path.join(runDir, 'metrics.jsonl')), 0, 'too late: a step is done already');
  process.kill(cli.child.pid!, 'SIGINT');
  const r = await cli.done;
  t.diagnostic(
    r.stdout
      .split('\n')
      .filter((l) => /SIGINT/.test(l))
      .join(' | '),
  );
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stdout, /stopped by SIGINT during start-up, before any step; no worker is left\n/);
  assert.deepEqual(checkpointSteps(runDir), []);
  await waitFor(() => workers.every((p) => !isAlive(p)), 10_000, 'the workers to exit');
});

test('Ctrl-C while the workers build a model that never comes: exit 130 at once, every worker killed', async (t) => {
  const hangs = path.join(dir, 'never-built.mjs');
  fs.writeFileSync(hangs, 'export default () => new Promise(() => {});\n');
  const stuck = writeConfigFile(dir, 'never-built', {
    model: { module: hangs },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'never', 20, 'onehot', 8) },
    training: { batchSize: 4, steps: 2 },
    optimizer: { name: 'sgd' },
    reliability: { stepTimeout: 30 },
  });
  const cli = startCli(['train', stuck, ...base, '--run-dir', path.join(dir, 'runs', 'never-built')]);
  const workers = await waitFor(
    () => {
      const w = [...workerPids(cli.child.pid!).values()];
      return w.length === 2 ? w : null;
    },
    30_000,
    'the workers to start',
  );
  const t0 = Date.now();
  process.kill(cli.child.pid!, 'SIGINT');
  const r = await cli.done;
  const secs = (Date.now() - t0) / 1000;
  t.diagnostic(
    `exit ${r.code} ${secs.toFixed(1)} s after SIGINT: ${r.stdout
      .split('\n')
      .filter((l) => /SIGINT/.test(l))
      .join(' | ')}`,
  );
  assert.equal(r.code, 130, r.stderr);
  assert.ok(secs < 20, `took ${secs} s to stop (start-up deadline 30 s)`);
  assert.match(r.stdout, /SIGINT: stopping the start-up; the workers that started are killed\n/);
  assert.match(r.stdout, /stopped by SIGINT during start-up, before any step; no worker is left\n/);
  assert.doesNotMatch(r.stderr, /error/);
  assert.ok(
    workers.every((p) => !isAlive(p)),
    `workers ${workers} still alive after the CLI exited`,
  );
});

test('a second Ctrl-C stops at once, even while a worker hangs in its step: exit 130, every worker killed', async (t) => {
  const runDir = path.join(dir, 'runs', 'twice');
  const cli = startCli(['train', file, ...base, '--run-dir', runDir]);
  await waitForRunStep(cli.done, path.join(runDir, 'metrics.jsonl'), 3);
  const workers = [...workerPids(cli.child.pid!).values()];
  process.kill(workers[1]!, 'SIGSTOP'); // the step in progress cannot finish (stepTimeout is 600 s)
  process.kill(cli.child.pid!, 'SIGINT');
  await waitFor(() => /finishing this step/.test(cli.stdout()), 10_000, 'the first SIGINT to be seen');
  process.kill(cli.child.pid!, 'SIGINT');
  const r = await cli.done;
  t.diagnostic(
    r.stdout
      .split('\n')
      .filter((l) => /SIGINT/.test(l))
      .join(' | '),
  );
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stdout, /SIGINT again: stopping now/);
  await waitFor(
    () => workers.every((p) => !isAlive(p)),
    10_000,
    `the workers to exit (${workers.map((p) => `${p}: ${processState(p) ?? 'gone'}`).join(', ')})`,
  );
});
