// A machine that stalls (its coordinator stopped with SIGSTOP) is named by rank and host within
// the step deadline, by rank 0, and the job ends instead of hanging.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { waitForStep, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { needMpi, runMpi } from '../helpers/mpi.ts';

test('SIGSTOP on rank 1: rank 0 names it within reliability.stepTimeout and the job ends', async (t) => {
  if (!needMpi(t)) return;
  const dir = tempDir('mpi-stall');
  const runDir = path.join(dir, 'run');
  const file = writeConfigFile(dir, 'exp', {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 100, 'onehot', 3) },
    training: { batchSize: 10, steps: 100000, seed: 1 },
    optimizer: { name: 'sgd', learningRate: 0.1 },
    log: { every: 1 },
    reliability: { stepTimeout: 3, onWorkerFailure: 'abort' },
    devices: { simulate: 1, backend: 'cpu' },
    runDir,
  });
  let mpirun = 0;
  const running = runMpi(2, ['train', file], { onStart: (pid) => (mpirun = pid), timeoutMs: 60_000 });
  await waitForStep(path.join(runDir, 'metrics.jsonl'), 5);
  const ps = spawnSync('ps', ['--ppid', String(mpirun), '-o', 'pid='], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => Number(l.trim()))
    .filter(Boolean);
  const rank1 = ps.find((pid) => /(?:^|\0)OMPI_COMM_WORLD_RANK=1\0/.test(fs.readFileSync(`/proc/${pid}/environ`, 'utf8')));
  assert.ok(rank1, 'no rank 1 process');
  const stoppedAt = Date.now();
  process.kill(rank1, 'SIGSTOP');
  const r = await running;
  const took = (Date.now() - stoppedAt) / 1000;
  t.diagnostic(`mpirun exited ${r.code} ${took.toFixed(1)} s after the stop`);
  assert.notEqual(r.code, 0);
  // Stopped between steps, rank 0 sees it miss the step; stopped inside an allreduce, rank 0 calls the roll.
  assert.match(
    r.stderr,
    /error E_WORKER: step \d+: (?:the [a-zA-Z ]+: )?rank 1 \(.+\) did not (?:finish the step|take part) within 3 s.*: that machine stalled/,
  );
  assert.ok(took < 30, `the job took ${took} s to end`);
});
