// On several machines each makes only its own workers' rows of a batch: with a map-style module
// (rows made on demand, as decoded images and shard records are), 2 machines x 1 worker ask for
// each training sample of an epoch once between them, half each, and for each evaluation sample
// once (a machine's part of every chunk); before, every machine made the whole batch. Epoch 1 is
// counted, since epoch 0 also has sample 0 read by each machine for the shapes.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { writeConfigFile } from '../helpers/chaos.ts';
import { needMpi, runMpi } from '../helpers/mpi.ts';
import { getsOf, writeRecordingModule, type Get } from '../helpers/recording-module.ts';
import { tempDir, writeModelModule } from '../helpers/train-fixture.ts';

const TRAIN = 24;
const EVAL = 14;

test('2 machines make disjoint halves of each training batch and of each evaluation chunk', async (t) => {
  if (!needMpi(t)) return;
  const dir = tempDir('mpi-own-rows');
  const cfg = {
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'sparseCategoricalCrossentropy',
    data: {
      train: { type: 'module', module: writeRecordingModule(dir, 'train', TRAIN) },
      eval: { type: 'module', module: writeRecordingModule(dir, 'eval', EVAL) },
      prefetch: 1,
    },
    training: { batchSize: 8, epochs: 2, seed: 6 },
    eval: { every: { epochs: 1 }, batchSize: 6 },
    optimizer: { name: 'sgd', learningRate: 0.1 },
    devices: { simulate: 1, backend: 'cpu' },
    runDir: path.join(dir, 'run'),
  };
  const r = await runMpi(2, ['train', writeConfigFile(dir, 'cfg', cfg)]);
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const trainOf = (rank: number) =>
    getsOf(dir, 'train', rank)
      .filter((g) => g.split === 'data.train' && g.epoch === 1)
      .map((g) => g.index);
  const [a, b] = [trainOf(0), trainOf(1)];
  t.diagnostic(`epoch 1: machine 0 made ${a.length} rows, machine 1 ${b.length}`);
  assert.equal(a.length, TRAIN / 2, 'machine 0 made half the epoch');
  assert.equal(b.length, TRAIN / 2, 'machine 1 made the other half');
  assert.deepEqual(
    [...a, ...b].sort((x, y) => x - y),
    Array.from({ length: TRAIN }, (_, i) => i),
    'each sample once between them',
  );
  // Evaluation: after each of the 2 epochs, every eval sample is made by exactly one machine
  // (sample 0 also by both, once, for the shapes).
  const evalOf = (rank: number) => getsOf(dir, 'eval', rank).filter((g: Get) => g.split === 'data.eval');
  const count = (gets: Get[]) => {
    const m = new Map<number, number>();
    for (const g of gets) m.set(g.index, (m.get(g.index) ?? 0) + 1);
    return m;
  };
  const [ea, eb] = [count(evalOf(0)), count(evalOf(1))];
  for (let i = 1; i < EVAL; i++) {
    const made = [ea.get(i) ?? 0, eb.get(i) ?? 0];
    assert.ok(
      (made[0] === 2 && made[1] === 0) || (made[0] === 0 && made[1] === 2),
      `eval sample ${i}: made ${made[0]} times on machine 0, ${made[1]} on machine 1`,
    );
  }
  const machine1 = [...eb.keys()].filter((i) => i !== 0);
  assert.ok(machine1.length > 0 && machine1.length < EVAL - 1, `machine 1 made a part of each chunk, not none or all (${machine1.join(',')})`);
});
