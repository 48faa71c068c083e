// The train lines of several machines: the loss is the mean over the global batch, the sum of
// every machine's rows divided by all of them, so 2 machines x 1 worker log, at every step, the
// loss that 1 machine x 2 workers log (the same weights, bit for bit, by mpi-deterministic).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { readMetrics, runCliAsync, writeConfigFile } from '../helpers/chaos.ts';
import { tempDir, writeDataset, writeModelModule } from '../helpers/train-fixture.ts';
import { needMpi, runMpi } from '../helpers/mpi.ts';

test('2 machines x 1 worker log the train loss of 1 machine x 2 workers at every step', async (t) => {
  if (!needMpi(t)) return;
  const dir = tempDir('mpi-train-loss');
  const raw = (runDir: string, perMachine: number) => ({
    model: { module: writeModelModule(dir, 'mlp') },
    loss: 'categoricalCrossentropy',
    data: { train: writeDataset(dir, 'train', 40, 'onehot', 7) },
    training: { batchSize: 10, steps: 5, seed: 4 },
    optimizer: { name: 'sgd', learningRate: 0.3 },
    devices: { simulate: perMachine, backend: 'cpu' },
    log: { every: 1 },
    runDir,
  });
  const two = path.join(dir, 'two');
  const r = await runMpi(2, ['train', writeConfigFile(dir, 'two', raw(two, 1))]);
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const one = path.join(dir, 'one');
  const s = await runCliAsync(['train', writeConfigFile(dir, 'one', raw(one, 2))]);
  assert.equal(s.code, 0, s.stderr);
  const losses = (run: string) =>
    readMetrics(path.join(run, 'metrics.jsonl'))
      .filter((l) => l.type === 'train')
      .map((l) => [l.step, l.loss]);
  t.diagnostic(JSON.stringify(losses(one)));
  assert.equal(losses(one).length, 5, 'a train line per step');
  assert.deepEqual(losses(two), losses(one));
});
