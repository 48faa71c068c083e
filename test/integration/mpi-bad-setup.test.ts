// Bad multi-machine setups are refused before step 0 with an error that names the machines:
// another config on one rank (ends the job with exit 2), reshard (the others could not follow),
// and a command other than train under the launcher.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { needMpi, runMpi } from '../helpers/mpi.ts';

const dir = tempDir('mpi-bad');
const raw = {
  model: { module: writeModelModule(dir, 'mlp') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 20, 'onehot', 1) },
  training: { batchSize: 4, steps: 3 },
  optimizer: { name: 'sgd' },
  devices: { simulate: 1, backend: 'cpu' },
  runDir: path.join(dir, 'run'),
};

test('rank 1 with another learning rate: E_CONFIG naming both ranks, the job ends with exit 2', async (t) => {
  if (!needMpi(t)) return;
  const a = writeConfigFile(dir, 'a', raw);
  const r = await runMpi(
    [
      ['train', a],
      ['train', a, '--set', 'optimizer.learningRate=0.5'],
    ],
    [],
  );
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /error E_CONFIG: rank 1 \(.*\) runs another config than rank 0 \(.*\)/);
});

test('reshard across machines is refused; eval under mpirun is refused', async (t) => {
  if (!needMpi(t)) return;
  const file = writeConfigFile(dir, 'reshard', { ...raw, reliability: { onWorkerFailure: 'reshard' } });
  const r = await runMpi(2, ['train', file]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /error E_CONFIG: reliability\.onWorkerFailure: reshard .* other machines cannot follow/);
  const e = await runMpi(2, ['eval', file, '--checkpoint', dir]);
  assert.equal(e.code, 2, e.stderr);
  assert.match(e.stderr, /error E_USAGE: eval runs on one machine, but an MPI launcher started 2 processes/);
});
