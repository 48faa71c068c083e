// Several machines (M MPI ranks on this one, each a coordinator with N simulated GPUs) train the
// model plain single-process tfjs trains with the same global batches: M = 2 x N = 1 and
// M = 2 x N = 2, sgd and adam, uneven splits, a short last batch in which one machine has no
// rows, and BatchNorm against the tower reference with M x N towers.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { writeConfigFile } from '../helpers/chaos.ts';
import {
  assertWeightsClose,
  buildConfig,
  referenceTrain,
  savedOrder,
  tempDir,
  towerReferenceTrain,
  writeDataset,
  writeModelModule,
} from '../helpers/train-fixture.ts';
import { finalFloats, needMpi, runMpi } from '../helpers/mpi.ts';

const dir = tempDir('mpi-parity');
const data = writeDataset(dir, 'train', 42, 'onehot', 11);

async function case_(t: import('node:test').TestContext, name: string, machines: number, perMachine: number, raw: Record<string, unknown>, towers = 0) {
  const runDir = path.join(dir, `${name}-m${machines}n${perMachine}`);
  const file = writeConfigFile(dir, name, { ...raw, runDir, devices: { simulate: perMachine, backend: 'cpu' }, log: { every: 1000 } });
  const r = await runMpi(machines, ['train', file]);
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const cfg = buildConfig(dir, raw, 1);
  const ref = towers ? await towerReferenceTrain(cfg, towers) : await referenceTrain(cfg);
  assertWeightsClose(t, finalFloats(runDir), savedOrder(ref.model), `${name} M=${machines} N=${perMachine}`);
  ref.model.dispose();
  return r;
}

test('sgd: M = 2 machines x N = 1 and x N = 2 match single-process tfjs; the header says 2 machines', async (t) => {
  if (!needMpi(t)) return;
  const raw = {
    name: 'sgd',
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: data },
    training: { batchSize: 10, steps: 8, seed: 3 },
    optimizer: { name: 'sgd', learningRate: 0.5 },
  };
  const r = await case_(t, 'sgd', 2, 1, raw);
  assert.match(r.stdout, /machines\s+2 over MPI: rank 0 \(.*\) 1 worker, rank 1 \(.*\) 1 worker/);
  assert.match(r.stdout, /batch\s+global 10 = 2 workers on 2 machines x 5 per worker/);
  await case_(t, 'sgd', 2, 2, raw);
});

test('adam with uneven splits and a short last batch where machine 1 has no rows (M = 2 x N = 2)', async (t) => {
  if (!needMpi(t)) return;
  // 42 samples, batch 8: 5 batches of 8 (split 2,2,2,2) and a last one of 2 (1,1,0,0): machine 1 sits it out.
  const raw = {
    name: 'adam',
    model: { module: writeModelModule(dir, 'l2') },
    loss: 'categoricalCrossentropy',
    data: { train: data },
    training: { batchSize: 8, epochs: 1, seed: 5 },
    optimizer: { name: 'adam', learningRate: 0.02 },
  };
  await case_(t, 'adam-short', 2, 2, raw);
  await case_(t, 'adam-uneven', 2, 1, { ...raw, training: { batchSize: 7, steps: 6, seed: 5 } });
});

test('BatchNorm on M = 2 x N = 2: the tower reference with 4 towers (statistics summed over machines)', async (t) => {
  if (!needMpi(t)) return;
  const raw = {
    name: 'bn',
    model: { module: writeModelModule(dir, 'batchnorm') },
    loss: 'categoricalCrossentropy',
    data: { train: data },
    training: { batchSize: 12, steps: 6, seed: 2 },
    optimizer: { name: 'sgd', learningRate: 0.2 },
  };
  await case_(t, 'bn', 2, 2, raw, 4);
});
