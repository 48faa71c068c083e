// The same seed, M and N give byte-identical weights across reruns; and 2 machines x 1 worker
// give the bits of 1 machine x 2 workers (a sum of two is the same whichever adds it).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { finalFloats, needMpi, runMpi } from '../helpers/mpi.ts';

const dir = tempDir('mpi-determinism');
const raw = {
  model: { module: writeModelModule(dir, 'batchnorm') },
  loss: 'categoricalCrossentropy',
  data: { train: writeDataset(dir, 'train', 50, 'onehot', 4) },
  training: { batchSize: 9, steps: 10, seed: 8 },
  optimizer: { name: 'adam', learningRate: 0.01 },
  log: { every: 1000 },
};
const bytes = (w: Float32Array) => Buffer.from(w.buffer, w.byteOffset, w.byteLength);

test('M = 2 x N = 2: two runs with the same seed are byte-identical', async (t) => {
  if (!needMpi(t)) return;
  const run = async (name: string) => {
    const runDir = path.join(dir, name);
    const r = await runMpi(2, ['train', writeConfigFile(dir, name, { ...raw, runDir, devices: { simulate: 2, backend: 'cpu' } })]);
    assert.equal(r.code, 0, r.stderr);
    return finalFloats(runDir);
  };
  assert.ok(bytes(await run('a')).equals(bytes(await run('b'))), 'the reruns differ');
});

test('2 machines x 1 worker and 1 machine x 2 workers: the same bits', async (t) => {
  if (!needMpi(t)) return;
  const mlp = { ...raw, model: { module: writeModelModule(dir, 'mlp') } };
  const two = path.join(dir, 'two-machines');
  const r = await runMpi(2, ['train', writeConfigFile(dir, 'two', { ...mlp, runDir: two, devices: { simulate: 1, backend: 'cpu' } })]);
  assert.equal(r.code, 0, r.stderr);
  const one = path.join(dir, 'one-machine');
  const s = await runCliAsync(['train', writeConfigFile(dir, 'one', { ...mlp, runDir: one, devices: { simulate: 2, backend: 'cpu' } })]);
  assert.equal(s.code, 0, s.stderr);
  assert.ok(bytes(finalFloats(two)).equals(bytes(finalFloats(one))), 'M=2 x N=1 differs from M=1 x N=2');
});
