// Several machines (M MPI ranks on this one, each a coordinator with N simulated GPUs) train the
// model plain single-process tfjs trains with the same global batches: M = 2 x N = 1 and
// M = 2 x N = 2, sgd and adam, uneven splits, a short last batch in which one machine has no
// rows, and BatchNorm against the tower reference with M x N towers.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { writeConfigFile } from '../helpers/chaos.ts';
import { matchesTfjs, parityRuns } from '../helpers/machine-parity.ts';
import { finalFloats, needMpi, runMpi } from '../helpers/mpi.ts';
import { tempDir } from '../helpers/train-fixture.ts';

const dir = tempDir('mpi-parity');
const { sgd, adam, uneven, bn } = parityRuns(dir);

async function case_(t: TestContext, name: string, machines: number, perMachine: number, raw: Record<string, unknown>, towers = 0) {
  const runDir = path.join(dir, `${name}-m${machines}n${perMachine}`);
  const file = writeConfigFile(dir, name, { ...raw, runDir, devices: { simulate: perMachine, backend: 'cpu' }, log: { every: 1000 } });
  const r = await runMpi(machines, ['train', file]);
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  await matchesTfjs(t, dir, finalFloats(runDir), raw, `${name} M=${machines} N=${perMachine}`, towers);
  return r;
}

test('sgd: M = 2 machines x N = 1 and x N = 2 match single-process tfjs; the header says 2 machines', async (t) => {
  if (!needMpi(t)) return;
  const r = await case_(t, 'sgd', 2, 1, sgd);
  assert.match(r.stdout, /machines\s+2 over MPI: rank 0 \(.*\) 1 worker, rank 1 \(.*\) 1 worker/);
  assert.match(r.stdout, /batch\s+global 10 = 2 workers on 2 machines x 5 per worker/);
  await case_(t, 'sgd', 2, 2, sgd);
});

test('adam with uneven splits and a short last batch where machine 1 has no rows (M = 2 x N = 2)', async (t) => {
  if (!needMpi(t)) return;
  await case_(t, 'adam-short', 2, 2, adam);
  await case_(t, 'adam-uneven', 2, 1, uneven);
});

test('BatchNorm on M = 2 x N = 2: the tower reference with 4 towers (statistics summed over machines)', async (t) => {
  if (!needMpi(t)) return;
  await case_(t, 'bn', 2, 2, bn, 4);
});
