// training.syncBatchNorm over several machines: 2 MPI ranks on this machine, each a coordinator
// with 1 simulated GPU on wasm, train the BatchNorm model to the weights and moving statistics of
// plain single-process tfjs on the whole batch (each relay adds its machine's sums up over the
// machines by an allreduce before it answers its workers). Over MPI it runs only with
// reliability.onWorkerFailure: abort (the refusal otherwise is batch-norm-relay-machines.test.ts).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { writeConfigFile } from '../helpers/chaos.ts';
import { matchesTfjs, parityRuns } from '../helpers/machine-parity.ts';
import { finalFloats, needMpi, runMpi } from '../helpers/mpi.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('sync-bn-mpi');

test('syncBatchNorm on M = 2 machines x N = 1 over MPI: the whole-batch weights and moving statistics', async (t) => {
  if (!needMpi(t)) return;
  const { bn } = parityRuns(dir);
  const raw = { ...bn, name: 'sync-bn', training: { ...bn.training, syncBatchNorm: true }, reliability: { onWorkerFailure: 'abort' } };
  const runDir = path.join(dir, 'sync-bn-m2n1');
  const file = writeConfigFile(dir, 'sync-bn', { ...raw, runDir, devices: { simulate: 1, backend: 'wasm' }, log: { every: 1000 } });
  const r = await runMpi(2, ['train', file]);
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  await matchesTfjs(t, dir, finalFloats(runDir), raw, 'syncBatchNorm M=2 N=1');
});
