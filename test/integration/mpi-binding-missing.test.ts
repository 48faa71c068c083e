// Started by an MPI launcher without the MPI binding: exit 2 before any worker starts, saying
// how many processes the launcher started and how to build the binding. (The launcher's
// variables are set by hand here; MGPU_MPI=0 stands for a machine where the binding did not build.)
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';

test('OMPI_COMM_WORLD_SIZE=2 without the binding: E_CONFIG, exit 2, the build command in the hint', async () => {
  const dir = tempDir('mpi-missing');
  const file = writeConfigFile(dir, 'exp', {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 20, 'onehot', 1) },
    training: { batchSize: 4, steps: 2 },
    optimizer: { name: 'sgd' },
    devices: { simulate: 1, backend: 'cpu' },
    runDir: path.join(dir, 'run'),
  });
  const r = await runCliAsync(['train', file], { env: { ...process.env, OMPI_COMM_WORLD_SIZE: '2', OMPI_COMM_WORLD_RANK: '0', MGPU_MPI: '0' } });
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /error E_CONFIG: started by an MPI launcher as one of 2 processes \(OMPI_COMM_WORLD_SIZE\), but the MPI binding is turned off by MGPU_MPI=0/,
  );
  assert.match(r.stderr, /hint: install MPI .* npm run build:mpi/);
  assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/, 'a stack trace');
});
