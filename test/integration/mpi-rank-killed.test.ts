// One machine dies mid-run (its coordinator SIGKILLed): MPI ends the job, every other machine's
// coordinator and workers exit, nothing is left in the shared-memory directory, and the last
// checkpoint (written by rank 0) continues the run with --resume.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { checkpointSteps, isAlive, SAFETY_NET_MS, sleep, waitFor, waitForRunStep, workerPids, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { needMpi, runMpi } from '../helpers/mpi.ts';

/** The rank processes mpirun started: MPI rank -> pid (from OMPI_COMM_WORLD_RANK). */
function rankPids(mpirun: number): Map<number, number> {
  const out = new Map<number, number>();
  const ps = spawnSync('ps', ['--ppid', String(mpirun), '-o', 'pid='], { encoding: 'utf8' });
  for (const pid of ps.stdout
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter(Boolean)) {
    try {
      const rank = /(?:^|\0)OMPI_COMM_WORLD_RANK=(\d+)/.exec(fs.readFileSync(`/proc/${pid}/environ`, 'utf8'))?.[1];
      if (rank !== undefined) out.set(Number(rank), pid);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

test('SIGKILL of one MPI rank: the job ends, no process and no shared memory are left, --resume continues', async (t) => {
  if (!needMpi(t)) return;
  const dir = tempDir('mpi-kill');
  const shm = path.join(dir, 'shm');
  fs.mkdirSync(shm);
  const runDir = path.join(dir, 'run');
  const file = writeConfigFile(dir, 'exp', {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 200, 'onehot', 3) },
    training: { batchSize: 10, steps: 4000, seed: 1 },
    optimizer: { name: 'sgd', learningRate: 0.1 },
    checkpoint: { every: 3 },
    log: { every: 1 },
    devices: { simulate: 1, backend: 'cpu', shmDir: shm },
    runDir,
  });
  let mpirun = 0;
  const running = runMpi(2, ['train', file], { onStart: (pid) => (mpirun = pid), timeoutMs: SAFETY_NET_MS });
  await waitForRunStep(running, path.join(runDir, 'metrics.jsonl'), 7);
  const ranks = rankPids(mpirun);
  assert.equal(ranks.size, 2, `rank processes of mpirun ${mpirun}: ${JSON.stringify([...ranks])}`);
  const workers = [...ranks.values()].flatMap((p) => [...workerPids(p).values()]);
  assert.equal(workers.length, 2, 'one worker per machine');
  process.kill(ranks.get(1)!, 'SIGKILL');
  const r = await running;
  t.diagnostic(
    `mpirun exited ${r.code}; ${r.stderr
      .split('\n')
      .filter((l) => /error|abort|kill/i.test(l))
      .slice(0, 3)
      .join(' | ')}`,
  );
  assert.notEqual(r.code, 0);
  const all = [...ranks.values(), ...workers];
  await waitFor(() => all.every((p) => !isAlive(p)), 15_000, 'every coordinator and worker to exit');
  await sleep(100);
  assert.deepEqual(fs.readdirSync(shm), [], 'files left in the shared-memory directory');
  const last = Math.max(...checkpointSteps(runDir));
  assert.ok(last >= 3, 'no checkpoint to resume from');
  const resumed = await runMpi(2, ['train', file, '--resume', '--set', `training.steps=${last + 3}`]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, new RegExp(`resuming from .*step-${last} at step ${last} of ${last + 3}`));
  assert.ok(checkpointSteps(runDir).includes(last + 3), 'the resumed run did not finish');
});
