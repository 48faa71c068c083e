// A machine that stalls (its coordinator stopped with SIGSTOP) is named by rank and host within
// the step deadline, by rank 0, and the job ends instead of hanging: every process it started
// exits and nothing is left in the shared-memory directory. The waits follow the run (its steps
// in metrics.jsonl, its exit), so a loaded machine only makes the test take longer.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { SAFETY_NET_MS, waitFor, waitForRunStep, writeConfigFile } from '../helpers/chaos.ts';
import { tagProcesses } from '../helpers/leftover-processes.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { needMpi, runMpi } from '../helpers/mpi.ts';

// The step deadline that names the stalled machine.
const STEP_TIMEOUT_S = 15;
// The workers' start-up and the machines' start-up check have their own deadline: a loaded
// machine's slow start fails nothing before the stop (a start-up held to stepTimeout = 3 s did).
const START_TIMEOUT_S = 120;
// After the deadline, the job and every process it started must end within this: a net for a hang.
const BOUND_S = 60;

/** The rank-1 process mpirun started (from OMPI_COMM_WORLD_RANK). */
function rank1Of(mpirun: number): number | undefined {
  return spawnSync('ps', ['--ppid', String(mpirun), '-o', 'pid='], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => Number(l.trim()))
    .filter(Boolean)
    .find((pid) => /(?:^|\0)OMPI_COMM_WORLD_RANK=1\0/.test(fs.readFileSync(`/proc/${pid}/environ`, 'utf8')));
}

test('SIGSTOP on rank 1: rank 0 names it within reliability.stepTimeout, the job ends, nothing is left', async (t) => {
  if (!needMpi(t)) return;
  const dir = tempDir('mpi-stall');
  const shm = path.join(dir, 'shm');
  fs.mkdirSync(shm);
  const runDir = path.join(dir, 'run');
  const file = writeConfigFile(dir, 'exp', {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 100, 'onehot', 3) },
    training: { batchSize: 10, steps: 100000, seed: 1 },
    optimizer: { name: 'sgd', learningRate: 0.1 },
    log: { every: 1 },
    reliability: { stepTimeout: STEP_TIMEOUT_S, startTimeout: START_TIMEOUT_S, onWorkerFailure: 'abort' },
    devices: { simulate: 1, backend: 'cpu', shmDir: shm },
    runDir,
  });
  // Every process of the job carries the tag: whatever is left, also when the test fails, is killed.
  const tagged = tagProcesses();
  t.after(() => tagged.alive().forEach((pid) => process.kill(pid, 'SIGKILL')));
  let mpirun = 0;
  const running = runMpi(2, ['train', file], { onStart: (pid) => (mpirun = pid), env: tagged.env, timeoutMs: SAFETY_NET_MS });
  await waitForRunStep(running, path.join(runDir, 'metrics.jsonl'), 5);
  const rank1 = rank1Of(mpirun);
  assert.ok(rank1, 'no rank 1 process');
  const stoppedAt = Date.now();
  process.kill(rank1, 'SIGSTOP');
  let hung = false;
  const net = setTimeout(
    () => {
      hung = true;
      process.kill(mpirun, 'SIGKILL');
    },
    (STEP_TIMEOUT_S + BOUND_S) * 1000,
  );
  const r = await running;
  clearTimeout(net);
  const took = (Date.now() - stoppedAt) / 1000;
  t.diagnostic(`mpirun exited ${r.code} ${took.toFixed(1)} s after the stop`);
  assert.ok(!hung, `the job had not ended ${STEP_TIMEOUT_S + BOUND_S} s after the stop\n${r.stderr}`);
  assert.notEqual(r.code, 0);
  // Stopped between steps, rank 0 sees it miss the step; stopped inside an allreduce, rank 0 calls the roll.
  const host = os.hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  assert.match(
    r.stderr,
    new RegExp(
      `error E_WORKER: step \\d+: (?:the [a-zA-Z ]+: )?rank 1 \\(${host}\\) did not (?:finish the step|take part) within ${STEP_TIMEOUT_S} s.*: that machine stalled`,
    ),
  );
  const until = stoppedAt + (STEP_TIMEOUT_S + BOUND_S) * 1000;
  await waitFor(() => tagged.alive().length === 0, Math.max(0, until - Date.now()), 'every process of the job to exit').catch(() => {
    assert.fail(`left ${STEP_TIMEOUT_S + BOUND_S} s after the stop: ${tagged.alive().join(' ')}`);
  });
  assert.deepEqual(fs.readdirSync(shm), [], 'files left in the shared-memory directory');
});
